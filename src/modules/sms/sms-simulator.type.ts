import { builder } from '../../graphql/builder.ts';
import type { HandsetMessage } from '../../ports/sms-gateway.ts';
import { smsService } from './sms.service.ts';

/** The simulated gateway's handset inspection (docs/sms.md "The simulated gateway"): simulator only. */
const HandsetMessageRef = builder.objectRef<HandsetMessage>('SimulatorHandsetMessage').implement({
  description: 'A message as a simulated handset received it, one-time codes in full (simulator only).',
  fields: (t) => ({
    gatewayMessageId: t.exposeString('gatewayMessageId', {
      description: 'The simulated gateway’s message id (the recipient’s gatewayMessageId in the outbox).',
    }),
    senderId: t.exposeString('senderId', { description: 'The sender ID the handset shows.' }),
    phone: t.exposeString('phone', { description: 'Normalised 2547XXXXXXXX' }),
    body: t.exposeString('body', { description: 'The text as the handset shows it' }),
    receivedAt: t.expose('receivedAt', { description: 'When the handset received it.', type: 'DateTime' }),
    deliveryStatus: t.exposeString('deliveryStatus', { nullable: true, description: 'Success or Failed; null before' }),
  }),
});

builder.queryField('simulatorHandsetMessages', (t) =>
  t.field({
    type: [HandsetMessageRef],
    authScopes: { admin: true },
    description:
      'Simulator only: what a handset received from this organisation at the simulated SMS gateway, newest first ' +
      '(at most 50), one-time codes in full. not_found unless the SMS rail is the simulator, and always under ' +
      'NODE_ENV=production. Needs scope admin and an admin user.',
    args: {
      phone: t.arg.string({ description: 'The simulated handset (Kenyan mobile, any format).', required: true }),
    },
    resolve: (_r, a, ctx) => smsService.handsetMessages(ctx, a.phone),
  }),
);
