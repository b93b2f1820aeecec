/** Who a conversation belongs to: an end user of a tenant. */
export interface Owner {
  tenant: string;
  user: string;
}
