-- A phone the organisation changes is held for one-time codes (docs/motor-and-clients.md "Phone changes"): until
-- phone_held_until, codes go to codes_phone, the phone trusted before the change. Existing clients: nothing held.
-- AlterTable
ALTER TABLE "clients" ADD COLUMN     "codes_phone" TEXT,
ADD COLUMN     "phone_held_until" TIMESTAMPTZ(3);
