import type { CertificateClass, CertificateRecord } from '../../../src/ports/certificate-registry.ts';

/**
 * A member company at the simulated registry. A class missing from `stock` means the member is not authorised for
 * it (ER001); a class at 0 means authorised but out of stock (ER006).
 */
export interface SimMember {
  id: number;
  name: string;
  stock: Partial<Record<CertificateClass, number>>;
}

/** A certificate as the simulator keeps it: the public record plus its period as dates (for overlap checks). */
export interface SimStored extends CertificateRecord {
  start: Date;
  end: Date;
}

/** One registry operation's view of the state, inside `SimStore.atomic` (one operation at a time). */
export interface SimOps {
  member(id: number): Promise<SimMember | null>;
  takeStock(memberId: number, cls: CertificateClass): Promise<void>;
  /** Active certificates on this registration or chassis (already normalised) overlapping [start, end]. */
  overlapping(registration: string, chassis: string, start: Date, end: Date): Promise<SimStored[]>;
  insert(c: SimStored): Promise<void>;
  find(certificateNo: string): Promise<SimStored | null>;
  markCancelled(certificateNo: string, reasonId: number): Promise<void>;
  nextSerial(): Promise<number>;
  nextReference(): string;
}

/** Where the simulator keeps its state: in memory (unit tests) or in PostgreSQL (the app, db-store.ts). */
export interface SimStore {
  atomic<T>(fn: (ops: SimOps) => Promise<T>): Promise<T>;
}

/** Every class a member can be authorised for. */
export const CLASSES: CertificateClass[] = ['A', 'B', 'C', 'D'];

/** The in-memory store: one instance is one registry. */
export class MemorySimStore implements SimStore {
  private readonly members = new Map<number, SimMember>();
  private readonly certificates = new Map<string, SimStored>();
  private serial = 0;
  private refSerial = 0;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(members: SimMember[]) {
    for (const m of members) this.members.set(m.id, { ...m, stock: { ...m.stock } });
  }

  atomic<T>(fn: (ops: SimOps) => Promise<T>): Promise<T> {
    // Plain values wrapped in promises: SimOps is asynchronous for the database store's sake.
    const ops: SimOps = {
      member: (id) => Promise.resolve(this.members.get(id) ?? null),
      takeStock: (id, cls) => Promise.resolve(void (this.members.get(id)!.stock[cls]! -= 1)),
      overlapping: (reg, ch, start, end) =>
        Promise.resolve(
          [...this.certificates.values()].filter(
            (c) =>
              c.status === 'Active' &&
              (c.registrationNumber === reg || c.chassisNumber === ch) &&
              !(c.start > end || c.end < start),
          ),
        ),
      insert: (c) => Promise.resolve(void this.certificates.set(c.certificateNo, c)),
      find: (no) => Promise.resolve(this.certificates.get(no) ?? null),
      markCancelled: (no, reasonId) => {
        const c = this.certificates.get(no)!;
        c.status = 'Cancelled';
        c.cancelReasonId = reasonId;
        return Promise.resolve();
      },
      nextSerial: () => Promise.resolve((this.serial += 1)),
      nextReference: () => `REF${String((this.refSerial += 1)).padStart(9, '0')}`,
    };
    const run = this.chain.then(() => fn(ops));
    this.chain = run.catch(() => undefined);
    return run;
  }
}
