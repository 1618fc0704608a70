import type { Config } from './config.ts';

/**
 * Named points where a crash costs the most, for the fault-injection tests (test/payments-faults.test.ts): with
 * FAULT_POINTS=<name>, the process SIGKILLs itself on reaching the point, exactly as a power cut would, leaving
 * whatever the point's code had committed and nothing else. FAULT_POINTS is refused under NODE_ENV=production.
 */
export type FaultPoint =
  /** An STK push's intent is committed (`sending`); the rail has not been called. */
  | 'stk.after-intent'
  /** The simulated rail has stored the prompt (the request reached the rail); it has not answered it yet. */
  | 'mpesa-sim.after-prompt-stored'
  /** The rail accepted the STK push; its acknowledgement is not yet recorded. */
  | 'stk.after-rail-call'
  /** The acknowledgement is recorded (`pending`, the answer fixed); the caller has not been answered. */
  | 'stk.after-ack'
  /** A callback was received; nothing of it is stored. */
  | 'callback.before-store'
  /** A callback is stored; it has not been confirmed with the rail. */
  | 'callback.after-store';

export function faultPoint(config: Pick<Config, 'faultPoints'>, name: FaultPoint): void {
  if (config.faultPoints.length && config.faultPoints.includes(name)) process.kill(process.pid, 'SIGKILL');
}
