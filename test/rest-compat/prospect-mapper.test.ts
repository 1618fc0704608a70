import { GraphQLEnumType } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { ProspectRecordFragment } from '../../rest-compat/generated/operations.ts';
import {
  convertFromRest,
  prospectFromRest,
  prospectRecordToRest,
  prospectToRest,
} from '../../rest-compat/mappers/prospect.ts';
import { boolParam } from '../../rest-compat/route.ts';
import { PROSPECT_VALUES } from '../../rest-compat/schemas/prospect.ts';
import { schema } from '../../src/graphql/schema.ts';
import { PROSPECT_RULES, PROSPECT_TRANSITIONS } from '../../src/modules/prospects/prospect-state.ts';
import { m } from './fixtures.ts';

const prospect: ProspectRecordFragment = {
  databaseId: 7,
  uuid: '6f1c1c1e-9b1a-4a55-9d1e-0c6b3d1f2a10',
  prospectNo: 'P-000007',
  type: 'business',
  name: 'Kamau Hardware Ltd',
  phone: '254712345678',
  email: null,
  idNo: null,
  kraPin: 'P051234567K',
  source: 'referral',
  interests: ['motor', 'medical'],
  estimatedPremium: m(45_243, 4_524_250),
  prospectStatus: 'quoted',
  lostReason: null,
  assignee: { databaseId: 4, name: 'Mutua', role: 'agent', code: 'AG-004' },
  createdBy: null,
  nextFollowUpOn: '2026-06-18',
  clientNo: 'C-000012',
  statusChangedAt: '2026-06-15T06:00:00.000Z',
  createdAt: '2026-06-14T06:00:00.000Z',
  updatedAt: '2026-06-15T06:00:00.000Z',
  timeline: [
    {
      databaseId: 1,
      kind: 'created',
      body: null,
      fromStatus: null,
      toStatus: 'new',
      actorId: 4,
      at: '2026-06-14T06:00:00.000Z',
    },
    {
      databaseId: 2,
      kind: 'quote_saved',
      body: 'Quote Q-2026-000003',
      fromStatus: 'new',
      toStatus: 'quoted',
      actorId: 4,
      at: '2026-06-15T06:00:00.000Z',
    },
  ],
};

describe('prospect mapper', () => {
  it('the record: money as the core rounded it, people by id, the timeline in REST spelling', () => {
    expect(prospectRecordToRest(prospect)).toEqual({
      id: 7,
      uuid: prospect.uuid,
      prospect_no: 'P-000007',
      type: 'business',
      name: 'Kamau Hardware Ltd',
      phone: '254712345678',
      email: null,
      id_no: null,
      kra_pin: 'P051234567K',
      source: 'referral',
      interests: ['motor', 'medical'],
      estimated_premium: 45_243,
      estimated_premium_minor: 4_524_250,
      status: 'quoted',
      lost_reason: null,
      assignee: { id: 4, name: 'Mutua', role: 'agent', code: 'AG-004' },
      created_by: null,
      next_follow_up_on: '2026-06-18',
      client_no: 'C-000012',
      status_changed_at: '2026-06-15T06:00:00.000Z',
      created_at: '2026-06-14T06:00:00.000Z',
      updated_at: '2026-06-15T06:00:00.000Z',
      timeline: [
        {
          id: 1,
          kind: 'created',
          body: null,
          from_status: null,
          to_status: 'new',
          actor_id: 4,
          at: prospect.createdAt,
        },
        {
          id: 2,
          kind: 'quote_saved',
          body: 'Quote Q-2026-000003',
          from_status: 'new',
          to_status: 'quoted',
          actor_id: 4,
          at: prospect.updatedAt,
        },
      ],
    });
    expect(prospectToRest({ ...prospect, estimatedPremium: null })).toMatchObject({
      estimated_premium: null,
      estimated_premium_minor: null,
    });
    expect(prospectToRest(prospect)).not.toHaveProperty('timeline');
  });

  it('the request: REST spellings, the legacy `idno`/`pin` too; a null is kept (it clears on PATCH)', () => {
    expect(
      prospectFromRest({
        name: 'A',
        idno: '1',
        pin: 'P1',
        assignee_id: 3,
        next_follow_up_on: null,
        estimated_premium: 100,
        interests: ['motor'],
      }),
    ).toEqual({
      type: undefined,
      name: 'A',
      phone: undefined,
      email: undefined,
      idNo: '1',
      kraPin: 'P1',
      source: undefined,
      interests: ['motor'],
      estimatedPremium: 100,
      assigneeId: 3,
      nextFollowUpOn: null,
      note: undefined,
      force: undefined,
    });
    expect(prospectFromRest({ id_no: null, idno: '1', kra_pin: 'P2', pin: 'P1' })).toMatchObject({
      idNo: null,
      kraPin: 'P2',
    });
    expect(convertFromRest({ client_no: 'C-000001', id_no: '2', sales_person_id: 9 })).toMatchObject({
      clientNo: 'C-000001',
      idNo: '2',
      salesPersonId: 9,
    });
  });

  it('follow_up_due: true and false as booleans, anything else as sent for GraphQL to refuse', () => {
    expect([boolParam('true'), boolParam('false'), boolParam(null), boolParam(''), boolParam('yes')]).toEqual([
      true,
      false,
      undefined,
      undefined,
      'yes',
    ]);
  });

  it("the OpenAPI document's values are the state machine's and the GraphQL enums'", () => {
    // The schema is printed sorted: compare as sets.
    const values = (name: string) =>
      (schema.getType(name) as GraphQLEnumType)
        .getValues()
        .map((v) => String(v.value))
        .sort();
    expect([...PROSPECT_VALUES.statuses].sort()).toEqual(Object.keys(PROSPECT_TRANSITIONS).sort());
    expect(values('ProspectStatus')).toEqual([...PROSPECT_VALUES.statuses].sort());
    expect(PROSPECT_VALUES.sources).toEqual(PROSPECT_RULES.sources);
    expect(values('ProspectSource')).toEqual([...PROSPECT_VALUES.sources].sort());
    expect(PROSPECT_VALUES.interests).toEqual(PROSPECT_RULES.interests);
    expect(values('ProspectInterest')).toEqual([...PROSPECT_VALUES.interests].sort());
    expect(PROSPECT_VALUES.lostReasons).toEqual(PROSPECT_RULES.lostReasons);
    expect(values('ProspectLostReason')).toEqual([...PROSPECT_VALUES.lostReasons].sort());
    expect(PROSPECT_VALUES.types).toEqual(PROSPECT_RULES.types);
  });
});
