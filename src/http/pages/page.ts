import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppServices } from '../../context.ts';

/**
 * A path the service answers outside the API (/metrics, /docs, /dashboard): each page owns its files under
 * src/http/pages/ and says which paths are its own. The server asks them in order after the API's own paths.
 */
export interface Page {
  matches(pathname: string): boolean;
  handle(
    app: AppServices,
    req: IncomingMessage,
    res: ServerResponse,
    ctx: { url: URL; requestId: string; openapi: string },
  ): Promise<void>;
}
