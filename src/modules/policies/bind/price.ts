import type { Context } from '../../../context.ts';
import type { Tx } from '../../../db/client.ts';
import { DomainRuleError, PriceChangedError, ValidationError } from '../../../lib/problem.ts';
import { type MotorRisk, noQuote, priceRisk, type QuotedOption } from '../../motor/quote.service.ts';
import { figuresOff, mismatchError, type PricedFigures } from '../../motor/save-quote.service.ts';
import { currentProductVersion } from '../policy-factory.ts';
import type { BindInput, ValidBind } from './validate.ts';

/** The server's price of the risk, checked against what the caller submitted (version, figures, instalments, IPF). */
export async function priceAsSubmitted(
  ctx: Context,
  tx: Tx,
  risk: MotorRisk,
  pol: BindInput['policy'],
  v: Pick<ValidBind, 'instalments' | 'paymentMode'>,
): Promise<QuotedOption> {
  const { options, refusals } = await priceRisk(ctx, tx, risk);
  const option = options[0];
  if (!option) {
    const insurer = await tx.insurer.findUnique({ where: { id: pol.insurerId! } });
    if (!insurer) throw new ValidationError([{ field: 'policy.insurer_id', message: 'no such insurer on your panel' }]);
    // The insurer rates this class but refuses this vehicle (age, value band): a business rule, not a missing quote.
    if (refusals.length) throw new DomainRuleError(refusals.join('; '));
    throw noQuote(risk, refusals);
  }
  checkAsSubmitted(option, pol, v);
  return option;
}

/** What the submitted checks read of an option, motor or any other line. */
type Submittable = PricedFigures & {
  productVersion: number;
  instalments: readonly unknown[];
  ipfReason: string | null;
};

/**
 * The server's option against what the caller submitted: the rating version priced on (409 price_changed), the
 * figures within KES 1 (422 premium_mismatch), the number of instalments and premium finance (422 domain_rule).
 */
export function checkAsSubmitted(
  option: Submittable,
  pol: { productVersion?: number | null; totalBasic?: number | null; taxes?: number | null; premium?: number | null },
  v: Pick<ValidBind, 'instalments' | 'paymentMode'>,
): void {
  if (pol.productVersion != null && pol.productVersion !== option.productVersion) {
    throw new PriceChangedError(
      `${option.insurer.name} changed its rates since this price was given (version ${pol.productVersion} → ${option.productVersion}); quote again`,
    );
  }
  const off = figuresOff(option, { basic: pol.totalBasic, taxes: pol.taxes, total: pol.premium });
  if (off.length)
    throw mismatchError(
      [option],
      `Submitted ${off.join(', ')} ${off.length === 1 ? 'differs' : 'differ'} from the server price by more than KES 1`,
    );
  if (v.instalments > option.instalments.length) {
    throw new DomainRuleError(
      `${option.insurer.name} allows at most ${option.instalments.length} instalment${option.instalments.length === 1 ? '' : 's'} for this cover`,
    );
  }
  if (v.paymentMode === 'ipf' && option.ipfReason) throw new DomainRuleError(option.ipfReason);
}

/** Rates changed by a transaction that committed after we priced: refuse rather than bind a stale price. */
export async function assertRatesUnchanged(tx: Tx, option: QuotedOption): Promise<void> {
  if ((await currentProductVersion(tx, option.productId)) !== option.productVersion) {
    throw new PriceChangedError(`${option.insurer.name} changed its rates during this save; quote again`);
  }
}
