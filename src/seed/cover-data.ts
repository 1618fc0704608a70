// Data, not logic: exempt from the ~300-line size rule for source files.
/**
 * Non-motor cover products of the demo panel: one medical product, one travel product and the five standard
 * products per insurer, with their rate rows. Each line's figures live beside it (cover-medical.ts, cover-travel.ts,
 * cover-standard.ts) and are documented in covers/<line>/rating.ts and the docs/covers.md ("Medical, travel and standard
 * covers").
 */
import type { Tx } from '../db/client.ts';
import { medicalProducts } from './cover-medical.ts';
import { standardProducts } from './cover-standard.ts';
import { travelProducts } from './cover-travel.ts';
import type { DemoCoverProduct } from './cover-types.ts';

/**
 * The products of one insurer of the panel. `insurerIndex` is the insurer's place on the panel (0 first), which the
 * figures use to vary price between insurers so options differ.
 */
export function coverProductsFor(insurerIndex: number): DemoCoverProduct[] {
  return [...medicalProducts(insurerIndex), ...travelProducts(insurerIndex), ...standardProducts(insurerIndex)];
}

/**
 * Adds the cover products to every insurer of the organisation that has none yet (re-runnable): per insurer, one
 * INSERT of its products (ids returned) and one of all their rates.
 */
export async function ensureCoverReference(tx: Tx, tenantId: number): Promise<void> {
  const insurers = await tx.insurer.findMany({ where: { tenantId }, orderBy: { id: 'asc' } });
  const stocked = await tx.coverProduct.groupBy({ by: ['insurerId'], where: { tenantId } });
  const has = new Set(stocked.map((g) => g.insurerId));
  for (const [i, insurer] of insurers.entries()) {
    if (has.has(insurer.id)) continue;
    const products = coverProductsFor(i);
    const rows = await tx.coverProduct.createManyAndReturn({
      data: products.map((p) => ({
        tenantId,
        insurerId: insurer.id,
        productLine: p.productLine,
        code: p.code,
        name: `${insurer.name} ${p.name}`,
        minPremiumMinor: p.minPremiumMinor,
        maxInstalments: p.maxInstalments,
        ipfEligible: p.ipfEligible,
        renewable: p.renewable,
        excessText: p.excessText,
        terms: p.terms as never,
      })),
      select: { id: true, productLine: true, code: true },
    });
    const idOf = new Map(rows.map((r) => [`${r.productLine}/${r.code}`, r.id]));
    await tx.coverRate.createMany({
      data: products.flatMap((p) =>
        p.rates.map((r) => ({
          tenantId,
          coverProductId: idOf.get(`${p.productLine}/${p.code}`)!,
          rateTable: r.table,
          key: r.key ?? '',
          fromValue: BigInt(r.from),
          toValue: r.to == null ? null : BigInt(r.to),
          rateBps: r.rateBps ?? null,
          amountMinor: r.amountMinor ?? null,
        })),
      ),
    });
  }
}
