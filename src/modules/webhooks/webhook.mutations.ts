import { builder } from '../../graphql/builder.ts';
import { ValidationError } from '../../lib/problem.ts';
import { webhookService } from './webhook.service.ts';

interface SecretPayload {
  endpoint: { id: string };
  secret: string;
}

const WebhookEndpointSecretPayload = builder.objectRef<SecretPayload>('WebhookEndpointSecretPayload').implement({
  description: 'A webhook endpoint together with its new signing secret, which this answer alone shows.',
  fields: (t) => ({
    endpoint: t.prismaField({
      description: 'The endpoint created or rotated.',
      type: 'WebhookEndpoint',
      resolve: (query, p, _a, ctx) => webhookService.byId(ctx, p.endpoint.id, query),
    }),
    secret: t.exposeString('secret', { description: 'The signing secret (whsec_…), shown once.' }),
  }),
});

const CreateWebhookEndpointInput = builder.inputType('CreateWebhookEndpointInput', {
  description: 'A new webhook endpoint: where to send, which events, and a note.',
  fields: (t) => ({
    url: t.string({ required: true, description: 'https:// URL on a public address' }),
    events: t.stringList({ required: true, description: 'Event names from eventCatalogue, or `*`' }),
    description: t.string({ description: 'A note on the endpoint (at most 500 characters); optional.' }),
  }),
});

const UpdateWebhookEndpointInput = builder.inputType('UpdateWebhookEndpointInput', {
  description: 'Changes to a webhook endpoint; omitted fields stay as they are.',
  fields: (t) => ({
    id: t.id({ description: 'The endpoint id.', required: true }),
    url: t.string({ description: 'A new https:// URL on a public address.' }),
    events: t.stringList({ description: 'Replaces the subscribed events: names from eventCatalogue, or `*`.' }),
    enabled: t.boolean({ description: 'false stops sending (scheduled attempts too); true resumes.' }),
    description: t.string({ description: 'A new note (at most 500 characters).' }),
  }),
});

const errors = (name: string) => ({
  types: [ValidationError],
  directResult: true as const,
  union: { name: `${name}Result` },
});

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    description: 'A new webhook endpoint; its signing secret is shown once, in this answer only.',
    type: WebhookEndpointSecretPayload,
    authScopes: { $all: { webhooks: true, staff: true } },
    errors: errors('CreateWebhookEndpoint'),
    args: {
      input: t.arg({
        description: 'URL, events subscribed and description of the new endpoint.',
        type: CreateWebhookEndpointInput,
        required: true,
      }),
    },
    resolve: (_r, { input }, ctx) => webhookService.create(ctx, input),
  }),
  updateWebhookEndpoint: t.prismaField({
    description: "Changes an endpoint's URL, events, description or active flag; only the fields sent change.",
    type: 'WebhookEndpoint',
    authScopes: { $all: { webhooks: true, staff: true } },
    errors: errors('UpdateWebhookEndpoint'),
    args: {
      input: t.arg({
        description: 'The endpoint id and the fields to change.',
        type: UpdateWebhookEndpointInput,
        required: true,
      }),
    },
    resolve: (_q, _r, { input }, ctx) => {
      const { id, ...patch } = input;
      return webhookService.update(ctx, String(id), patch);
    },
  }),
  deleteWebhookEndpoint: t.prismaField({
    type: 'WebhookEndpoint',
    authScopes: { $all: { webhooks: true, staff: true } },
    description: 'Deletes the endpoint and its delivery log; returns what was deleted (its `deliveries` are gone).',
    args: { id: t.arg.id({ description: 'The endpoint id.', required: true }) },
    resolve: (_q, _r, args, ctx) => webhookService.remove(ctx, String(args.id)),
  }),
  rotateWebhookSecret: t.field({
    description: 'A new signing secret for a webhook endpoint, shown once; deliveries are signed with it from now on.',
    type: WebhookEndpointSecretPayload,
    authScopes: { $all: { webhooks: true, staff: true } },
    errors: errors('RotateWebhookSecret'),
    args: {
      id: t.arg.id({ description: 'The endpoint id.', required: true }),
      graceHours: t.arg.int({ description: 'How long the previous secret keeps signing too (0–168 h, default 24).' }),
    },
    resolve: (_r, args, ctx) => webhookService.rotateSecret(ctx, String(args.id), args.graceHours),
  }),
  sendTestWebhook: t.prismaField({
    type: 'WebhookDelivery',
    authScopes: { $all: { webhooks: true, staff: true } },
    errors: errors('SendTestWebhook'),
    description: 'Delivers a `ping` to this endpoint whatever it subscribes to.',
    args: {
      id: t.arg.id({ description: 'The endpoint id.', required: true }),
      message: t.arg.string({ description: 'Text carried in the ping (optional).' }),
    },
    resolve: (_q, _r, args, ctx) => webhookService.sendTest(ctx, String(args.id), args.message),
  }),
  retryWebhookDelivery: t.prismaField({
    type: 'WebhookDelivery',
    authScopes: { $all: { webhooks: true, staff: true } },
    description:
      'Re-sends a failed delivery at once; the delivery id and the event id (Service-Delivery) stay the same.',
    args: { id: t.arg.id({ description: 'The failed delivery id.', required: true }) },
    resolve: (_q, _r, args, ctx) => webhookService.retry(ctx, String(args.id)),
  }),
}));
