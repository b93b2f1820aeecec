/** Customer records behind the `customer://{customerId}/profile` template. */
export interface Customer {
  id: string;
  name: string;
  plan: 'free' | 'team' | 'enterprise';
  seats: number;
  accountManager: string;
  openTickets: number;
  since: string;
}

export const CUSTOMERS: readonly Customer[] = [
  {
    id: 'acme',
    name: 'Acme Corporation',
    plan: 'enterprise',
    seats: 420,
    accountManager: 'Dana Whitfield',
    openTickets: 3,
    since: '2021-03-14',
  },
  {
    id: 'globex',
    name: 'Globex Inc.',
    plan: 'team',
    seats: 58,
    accountManager: 'Ravi Menon',
    openTickets: 1,
    since: '2022-07-01',
  },
  {
    id: 'initech',
    name: 'Initech',
    plan: 'team',
    seats: 34,
    accountManager: 'Dana Whitfield',
    openTickets: 0,
    since: '2023-01-20',
  },
  {
    id: 'umbrella',
    name: 'Umbrella Health',
    plan: 'enterprise',
    seats: 1200,
    accountManager: 'Sofia Reyes',
    openTickets: 7,
    since: '2020-11-05',
  },
  {
    id: 'hooli',
    name: 'Hooli',
    plan: 'free',
    seats: 5,
    accountManager: 'Ravi Menon',
    openTickets: 0,
    since: '2025-02-28',
  },
  {
    id: 'stark',
    name: 'Stark Industries',
    plan: 'enterprise',
    seats: 860,
    accountManager: 'Sofia Reyes',
    openTickets: 2,
    since: '2021-09-09',
  },
  {
    id: 'wayne',
    name: 'Wayne Enterprises',
    plan: 'team',
    seats: 77,
    accountManager: 'Dana Whitfield',
    openTickets: 4,
    since: '2024-05-17',
  },
];

export function findCustomer(id: string): Customer | undefined {
  return CUSTOMERS.find((customer) => customer.id === id);
}
