-- One-time codes are never kept readable (docs/sms.md "One-time codes"): a message carrying one keeps its text as
-- sent only sealed, until it is handed to the gateway.
ALTER TABLE "sms_messages" ADD COLUMN     "body_sealed" TEXT;

-- The simulated gateway's book keeps what each handset received sealed too. The texts already in the book were
-- kept in the clear, and may hold codes: they are emptied (the simulator skips a text it cannot open).
ALTER TABLE "sms_sim_messages" RENAME COLUMN "body" TO "body_sealed";
UPDATE "sms_sim_messages" SET "body_sealed" = '';

-- The account that sent each message, so the handset inspection shows an organisation only its own messages.
ALTER TABLE "sms_sim_messages" ADD COLUMN     "account" TEXT NOT NULL DEFAULT '';

-- A sign-in request naming an unknown client number writes a code row too (no handset: it never verifies), so that
-- it does the same work as a client's (docs/client-area.md "Sign-in").
ALTER TABLE "client_otps" ALTER COLUMN "phone" DROP NOT NULL;
