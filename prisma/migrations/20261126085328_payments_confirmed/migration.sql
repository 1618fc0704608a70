-- AlterEnum
ALTER TYPE "PaymentRequestStatus" ADD VALUE 'sending';

-- AlterTable
ALTER TABLE "mpesa_callbacks" ADD COLUMN     "attempts" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "last_attempt_at" TIMESTAMPTZ(3);

-- Callback tokens are no longer stored, not even encrypted: they are derived from the master key and the channel's
-- generation. A token issued before this migration is honoured for one more day as the previous token.
-- AlterTable
ALTER TABLE "mpesa_channels" DROP COLUMN "callback_token_enc",
ADD COLUMN     "generation" INTEGER NOT NULL DEFAULT 1,
ADD COLUMN     "previous_token_hash" TEXT,
ADD COLUMN     "previous_valid_until" TIMESTAMPTZ(3),
ADD COLUMN     "rotated_at" TIMESTAMPTZ(3),
ADD COLUMN     "statement_pulled_to" TIMESTAMPTZ(3),
ALTER COLUMN "callback_token_hash" DROP NOT NULL;
UPDATE "mpesa_channels" SET "previous_token_hash" = "callback_token_hash", "previous_valid_until" = now() + interval '1 day',
  "callback_token_hash" = NULL, "generation" = 2;

-- The simulated rail keeps only a hash of each callback URL (it carries the organisation's token).
ALTER TABLE "mpesa_sim_prompts" ADD COLUMN "callback_url_hash" TEXT;
UPDATE "mpesa_sim_prompts" SET "callback_url_hash" = encode(sha256(convert_to("callback_url", 'UTF8')), 'hex');
ALTER TABLE "mpesa_sim_prompts" ALTER COLUMN "callback_url_hash" SET NOT NULL;
ALTER TABLE "mpesa_sim_prompts" DROP COLUMN "callback_url";

-- AlterTable
ALTER TABLE "payment_requests" ADD COLUMN     "account_reference" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "customer_message" TEXT,
ADD COLUMN     "idempotency_key" TEXT,
ADD COLUMN     "request_hash" TEXT,
ADD COLUMN     "response_code" TEXT,
ADD COLUMN     "response_description" TEXT,
ADD COLUMN     "sending_until" TIMESTAMPTZ(3),
ADD COLUMN     "shortcode" TEXT NOT NULL DEFAULT '',
ALTER COLUMN "merchant_request_id" DROP NOT NULL,
ALTER COLUMN "checkout_request_id" DROP NOT NULL;

-- CreateTable
CREATE TABLE "unmatched_payments" (
    "id" SERIAL NOT NULL,
    "tenant_id" INTEGER NOT NULL,
    "transaction_ref" TEXT NOT NULL,
    "checkout_request_id" TEXT,
    "phone" TEXT NOT NULL,
    "amount_minor" BIGINT NOT NULL,
    "account_reference" TEXT NOT NULL,
    "paid_at" TIMESTAMPTZ(3) NOT NULL,
    "found_via" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'refund_due',
    "reason" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "unmatched_payments_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "unmatched_payments_tenant_id_transaction_ref_key" ON "unmatched_payments"("tenant_id", "transaction_ref");

-- CreateIndex
CREATE INDEX "mpesa_callbacks_processed_at_received_at_idx" ON "mpesa_callbacks"("processed_at", "received_at");

-- CreateIndex
CREATE UNIQUE INDEX "mpesa_channels_previous_token_hash_key" ON "mpesa_channels"("previous_token_hash");

-- CreateIndex
CREATE INDEX "mpesa_sim_prompts_shortcode_resolved_at_idx" ON "mpesa_sim_prompts"("shortcode", "resolved_at");

-- CreateIndex
CREATE INDEX "payment_requests_status_created_at_idx" ON "payment_requests"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "payment_requests_api_client_id_idempotency_key_key" ON "payment_requests"("api_client_id", "idempotency_key");
