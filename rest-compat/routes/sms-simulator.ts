import { SimulatorHandsetMessagesDocument } from '../generated/operations.ts';
import { handsetMessageToRest } from '../mappers/sms.ts';
import { type AnyRoute, route } from '../route.ts';
import { arr, dataOf, ref } from '../schemas/builders.ts';

/**
 * The simulated SMS gateway's handset inspection (docs/sms.md "The simulated gateway"): the only place a one-time code
 * can be read, for demos and tests, while the SMS rail is the simulator and never in production.
 */
export const smsSimulatorRoutes: AnyRoute[] = [
  route({
    operationId: 'listSimulatorHandsetMessages',
    method: 'GET',
    path: '/simulator/sms/handsets/{phone}/messages',
    tag: 'SMS',
    serviceOnly: true,
    simulatorOnly: true,
    summary: 'Simulator only: what a handset received from this organisation, one-time codes in full',
    description:
      'What the simulated SMS gateway delivered to the handset `phone` (any Kenyan format) from this organisation, ' +
      'newest first, at most 50: the texts as the customer reads them, one-time codes in full (the outbox, GET /sms, ' +
      'shows every code masked). For demos and tests only: served while the SMS rail is the simulator and never under ' +
      'NODE_ENV=production, where the path answers 404 not_found. Needs scope admin and an admin user.',
    scopes: ['admin'],
    idempotent: false,
    operation: SimulatorHandsetMessagesDocument,
    toVariables: ({ params }) => ({ phone: params.phone }),
    toResponse: (d) => ({ status: 200, body: { data: d.simulatorHandsetMessages.map(handsetMessageToRest) } }),
    response: {
      status: 200,
      description: 'Messages, newest first',
      schema: dataOf(arr(ref('SimulatorHandsetMessage'))),
    },
    errors: ['validation_failed', 'not_found', 'actor_forbidden'],
  }),
];
