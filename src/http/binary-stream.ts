import type { ServerResponse } from 'node:http';
import type { GraphQLSchema } from 'graphql';
import { type CompiledRoute, runOperation } from '../../rest-compat/executor.ts';
import { BinaryBody, type RestInput } from '../../rest-compat/route.ts';
import type { Context } from '../context.ts';
import { writeDrained } from './respond.ts';

/**
 * Streams a binary answer read in ranges (rest-compat/route.ts BinaryRanges, a document download): the operation
 * runs once per range, each run its own short transactions as any operation's are, and each range is written and
 * drained before the next is read. No pooled connection is held while bytes go out, and a download holds one range
 * in memory, whatever the file's size. The first range is read before the head is sent, so a refusal (not found,
 * 503) is still a problem document; a failure after that cuts the connection (src/http/respond.ts sendProblem),
 * which with the Content-Length sent tells the client the file is incomplete.
 */
export async function streamRanges(
  res: ServerResponse,
  run: { schema: GraphQLSchema; compiled: CompiledRoute; ctx: Context; input: RestInput },
  headers: Record<string, string>,
): Promise<void> {
  const route = run.compiled.route;
  const ranges = route.ranges!;
  let variables = route.toVariables(run.input);
  let data: unknown = await runOperation(run.schema, run.compiled, run.ctx, variables);
  const out = route.toResponse(data, run.input);
  let body = binaryOf(out.body);
  res.writeHead(out.status, {
    ...body.headers,
    ...headers,
    'content-type': body.contentType,
    'content-length': String(body.length ?? body.bytes.byteLength),
  });
  for (;;) {
    if (body.bytes.byteLength && !(await writeDrained(res, body.bytes))) return;
    const next = ranges.next(data, variables);
    if (!next) break;
    variables = next;
    data = await runOperation(run.schema, run.compiled, run.ctx, variables);
    body = binaryOf(route.toResponse(data, run.input).body);
  }
  res.end();
}

function binaryOf(body: unknown): BinaryBody {
  if (!(body instanceof BinaryBody)) throw new Error('a route read in ranges must answer with a BinaryBody');
  return body;
}
