-- AlterTable
ALTER TABLE "payment_requests" ADD COLUMN     "first_answer" JSONB;
