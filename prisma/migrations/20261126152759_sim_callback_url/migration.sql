-- AlterTable
ALTER TABLE "mpesa_sim_prompts" ADD COLUMN     "callback_url_sealed" TEXT;
