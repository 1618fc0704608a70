import { defineConfig } from 'prisma/config';

// The URL only matters to Prisma CLI commands that talk to a database; ours go through src/db (migrations) and
// scripts/db-diff.ts, so a placeholder keeps `prisma generate` working with no environment set.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost:5432/placeholder' },
});
