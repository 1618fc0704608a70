import { arr, bool, int, nullable, obj, str, timestamp } from './builders.ts';

/** GET /me (inline in the document, not a component). */
export const meResponse = obj({
  data: obj({
    client: obj({
      id: str('Public client id'),
      name: str(),
      rate_limit_per_minute: int(
        "Requests per minute per token that apply: the client's own limit, else the deployment's default (60 unless set)",
      ),
    }),
    tenant: obj({
      code: str(),
      name: str(),
      type: str('brokerage, agency, sacco or microfinance'),
      paybill: str(),
    }),
    scopes: arr(str()),
    actor: nullable(obj({ id: int(), name: str(), role: str(), code: nullable(str()), own_records_only: bool() })),
    token: obj({ expires_at: timestamp(), expires_in: int('Seconds') }),
    request_id: str(),
  }),
});
