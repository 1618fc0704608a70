-- A phone the organisation changes is held for one-time codes (docs/motor-and-clients.md "Phone changes"): until
-- phone_held_until, codes go to codes_phone, the phone trusted before the change (which still names the client when
-- signing in: indexed). Existing clients: nothing held.
-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "codes_phone" TEXT,
ADD COLUMN     "phone_held_until" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "clients_tenant_id_codes_phone_idx" ON "clients"("tenant_id", "codes_phone");

-- Backfill (hand-written): the notice to the previous phone, for organisations seeded before it existed (new ones get
-- it from src/seed/sms-data.ts). An organisation's own template of that code is kept.
INSERT INTO "sms_templates" ("tenant_id", "code", "body", "active", "updated_at")
SELECT "id", 'phone_changed', 'Dear {{name}}, the phone number on your {{org}} account was changed on {{changed_on}}. If you did not ask for this, contact {{org}} at once.', true, now()
FROM "tenants"
ON CONFLICT ("tenant_id", "code") DO NOTHING;
