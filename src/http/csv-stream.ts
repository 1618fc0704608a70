import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import { type CompiledRoute, runOperation } from '../../rest-compat/executor.ts';
import type { Context } from '../context.ts';
import { csvRow } from '../lib/csv.ts';
import { writeDrained as write } from './respond.ts';

/** Whether the caller asked for the CSV variant of a route that has one (`Accept: text/csv`). */
export function wantsCsv(req: IncomingMessage, compiled: CompiledRoute): boolean {
  return !!compiled.route.csv && /(^|[\s,])text\/csv\b/i.test(req.headers.accept ?? '');
}

/**
 * Streams a route's CSV variant (rest-compat/route.ts CsvVariant): the operation runs batch after batch (each in its
 * own short transaction, as any operation does), and each batch's rows are written as soon as they are read, waiting
 * for the socket to drain, so the export is never held in memory whole. The first batch runs before the head is sent,
 * so a refusal (a bad parameter, an agent) is still a problem document; a failure after that cuts the connection
 * (src/http/respond.ts sendProblem), which tells the client the file is incomplete.
 */
export async function streamCsv(
  res: ServerResponse,
  run: { schema: GraphQLSchema; compiled: CompiledRoute; ctx: Context; variables: Record<string, unknown> },
  headers: Record<string, string>,
): Promise<void> {
  const csv = run.compiled.route.csv!;
  let variables = run.variables;
  let data: unknown = await runOperation(run.schema, run.compiled, run.ctx, variables);
  res.writeHead(200, {
    ...headers,
    ...csv.headers?.(data),
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${csv.filename}"`,
  });
  await write(res, csvRow(csv.columns));
  for (;;) {
    const chunk = csv
      .rows(data)
      .map((cells) => csvRow(cells))
      .join('');
    if (chunk && !(await write(res, chunk))) return;
    const next = csv.next(data, variables);
    if (!next) break;
    variables = next;
    data = await runOperation(run.schema, run.compiled, run.ctx, variables);
  }
  res.end();
}
