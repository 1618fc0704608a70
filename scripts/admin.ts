// `npm run admin -- <group> <command> [options]`: the operator's CLI (src/admin/cli.ts; `--help` lists the commands).
import { main } from '../src/admin/cli.ts';

process.exitCode = await main(process.argv.slice(2));
// The answer is written and every connection closed: exit now, not when the pool's idle timers have run out (~0.2 s
// of a command's time otherwise). Output to a pipe or file is written synchronously on Linux; the callbacks cover
// the rest.
process.stdout.write('', () => process.stderr.write('', () => process.exit()));
