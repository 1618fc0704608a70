import pino from 'pino';

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'bima-gateway' },
    timestamp: pino.stdTimeFunctions.isoTime,
    // Secrets must never reach a log line, whatever a caller passes in.
    redact: {
      paths: ['*.client_secret', '*.passkey', '*.password', '*.authorization', '*["x-agent-key"]', '*["x-client-key"]'],
      censor: '[redacted]',
    },
  });
}
