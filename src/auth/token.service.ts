import type { Database } from '../db/client.ts';
import { dummySecretHash, newSecret, sha256Hex, verifySecret } from '../lib/crypto.ts';
import { AppError } from '../lib/problem.ts';
import { isScope } from './scopes.ts';

export interface TokenRequest {
  grantType?: string;
  clientId?: string;
  clientSecret?: string;
  scope?: string;
}

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  scope: string;
}

/** OAuth 2.0 client-credentials grant (RFC 6749 §4.4) with the spec's error codes. */
export async function issueToken(
  db: Database,
  req: TokenRequest,
  opts: { ttlSeconds: number },
): Promise<TokenResponse> {
  const grant = req.grantType ?? 'client_credentials';
  if (grant !== 'client_credentials') {
    throw new AppError('unsupported_grant_type', {
      detail: `grant_type must be client_credentials, got ${JSON.stringify(grant).slice(0, 60)}`,
    });
  }
  if (!req.clientId || !req.clientSecret) {
    throw new AppError('invalid_request', {
      detail: 'client_id and client_secret are required (or key and passkey, or HTTP Basic)',
    });
  }
  const requested = req.scope?.trim() ? [...new Set(req.scope.trim().split(/\s+/))] : null;

  const client = await db.system((tx) =>
    tx.apiClient.findUnique({
      where: { clientId: req.clientId! },
      include: { tenant: true, actorUser: true, createdByUser: true },
    }),
  );
  // Verify against something even for an unknown id: response time must not reveal which ids exist.
  const secretOk = client
    ? (await verifySecret(req.clientSecret, client.secretHash)) ||
      (!!client.previousSecretHash &&
        !!client.previousSecretExpiresAt &&
        client.previousSecretExpiresAt.getTime() > Date.now() &&
        (await verifySecret(req.clientSecret, client.previousSecretHash)))
    : (await verifySecret(req.clientSecret, await dummySecretHash()), false);
  if (!client || !secretOk || client.revokedAt) {
    throw new AppError('invalid_client', { detail: 'Unknown client, wrong secret or revoked client' });
  }
  if (client.tenant.status !== 'active') {
    throw new AppError('tenant_inactive', {
      status: 403,
      detail: `Organisation ${client.tenant.code} is ${client.tenant.status.replace('_', ' ')}`,
    });
  }
  const actor = client.actorUser ?? client.createdByUser;
  if (actor?.disabled) throw new AppError('actor_disabled', { detail: `User ${actor.name} is disabled` });

  let scopes = client.scopes.filter(isScope);
  if (requested) {
    const notAllowed = requested.filter((s) => !scopes.includes(s as never));
    if (notAllowed.length) {
      throw new AppError('invalid_scope', {
        detail: `Scope not allowed for this client: ${notAllowed.join(' ').slice(0, 200)}`,
      });
    }
    scopes = scopes.filter((s) => requested.includes(s));
  }

  const token = newSecret('bgt');
  const expiresAt = new Date(Date.now() + opts.ttlSeconds * 1000);
  await db.tenant(client.tenantId, (tx) =>
    tx.accessToken.create({
      data: { tenantId: client.tenantId, apiClientId: client.id, tokenHash: sha256Hex(token), scopes, expiresAt },
    }),
  );
  return { access_token: token, token_type: 'Bearer', expires_in: opts.ttlSeconds, scope: scopes.join(' ') };
}
