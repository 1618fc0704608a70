-- CreateIndex
CREATE INDEX "receipts_policy_id_idx" ON "receipts"("policy_id");
