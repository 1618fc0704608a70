-- AlterTable
ALTER TABLE "payment_requests" ADD COLUMN     "settlement_answer" JSONB;
