/** Deterministic sample tickets for the demo API. */
export interface Ticket {
  id: number;
  title: string;
  body: string;
  status: 'open' | 'pending' | 'closed';
  priority: string;
  tags: string[];
  requester: { name: string; email?: string };
  created_at: string;
}

const TITLES = [
  'Cannot log in after password reset',
  'Invoice PDF shows the wrong VAT rate',
  'Export to CSV times out for large projects',
  'Dark mode makes the chart legend unreadable',
  'Webhook retries flood our endpoint',
  'Two-factor codes arrive late by SMS',
  'Search ignores accented characters',
  'Billing address cannot be changed',
  'Mobile app crashes when opening attachments',
  'API rate limit headers are missing',
  'Team invite link expired too early',
  'Timezone wrong in weekly report emails',
];
const TAGS = [
  ['auth'],
  ['billing'],
  ['export', 'performance'],
  ['ui'],
  ['api', 'webhooks'],
  ['auth', 'sms'],
  ['search'],
  ['billing'],
  ['mobile'],
  ['api'],
  ['teams'],
  ['email'],
];
const STATUS: Ticket['status'][] = ['open', 'open', 'pending', 'closed'];
const PEOPLE = [
  'Ada Lovelace',
  'Grace Hopper',
  'Alan Turing',
  'Katherine Johnson',
  'Edsger Dijkstra',
];

export function seedTickets(): Ticket[] {
  return TITLES.map((title, i) => ({
    id: i + 1,
    title,
    body: `Reported by ${PEOPLE[i % PEOPLE.length]}. ${title}.`,
    status: STATUS[i % STATUS.length]!,
    priority: i % 3 === 0 ? 'high' : 'normal',
    tags: TAGS[i]!,
    requester: {
      name: PEOPLE[i % PEOPLE.length]!,
      email: `${PEOPLE[i % PEOPLE.length]!.split(' ')[0]!.toLowerCase()}@example.com`,
    },
    created_at: new Date(Date.UTC(2024, 2, 1 + i * 2, 9 + (i % 8), 15)).toISOString(),
  }));
}
