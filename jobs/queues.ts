import { z } from 'zod';

/**
 * Every queue, declared once: name, payload schema (ids only), retry policy, and cron where it is scheduled.
 * Workers live beside this file and call services; they never touch the database themselves.
 */
export const QUEUES = {
  purgeExpired: {
    name: 'maintenance.purge-expired',
    payload: z.object({}).strict(),
    options: { retryLimit: 3, retryDelay: 60, retryBackoff: true, expireInSeconds: 300 },
    cron: '17 * * * *',
  },
} as const;

export type QueueName = (typeof QUEUES)[keyof typeof QUEUES]['name'];
