import { builder } from '../../graphql/builder.ts';
import { rotateCallbackToken } from './callback-token.ts';

type ChannelShape = Awaited<ReturnType<typeof rotateCallbackToken>>;

const MpesaCallbackChannelRef = builder.objectRef<ChannelShape>('MpesaCallbackChannel').implement({
  description:
    "The organisation's M-Pesa callback channel. The callback token itself is never shown or stored: it is derived from the " +
    'master key and the generation, and only its hash is kept.',
  fields: (t) => ({
    shortcode: t.exposeString('shortcode', { description: 'The paybill prompts are sent for' }),
    generation: t.exposeInt('generation', {
      description: 'Which callback token new prompts carry (1, then one more per rotation)',
    }),
    rotatedAt: t.expose('rotatedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the callback token was last rotated; null before the first rotation.',
    }),
    previousValidUntil: t.expose('previousValidUntil', {
      type: 'DateTime',
      nullable: true,
      description: 'Callbacks carrying the previous token are taken until then (prompts already sent carry it)',
    }),
  }),
});

builder.mutationField('rotateMpesaCallbackToken', (t) =>
  t.field({
    type: MpesaCallbackChannelRef,
    authScopes: { admin: true },
    description:
      "Rotates the organisation's M-Pesa callback token: new prompts carry the next one; the previous one is taken for " +
      'MPESA_CALLBACK_TOKEN_GRACE_SECONDS more. Needs scope admin and a user who manages API clients.',
    resolve: (_r, _a, ctx) => rotateCallbackToken(ctx),
  }),
);
