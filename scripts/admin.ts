// `npm run admin -- <group> <command> [options]`: the operator's CLI (src/admin/cli.ts; `--help` lists the commands).
import { main } from '../src/admin/cli.ts';

process.exitCode = await main(process.argv.slice(2));
