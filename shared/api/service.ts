import { z } from 'zod';

/** The service itself: health, and our OAuth client's metadata document. */

export const Health = z
  .object({ status: z.literal('ok'), name: z.string(), version: z.string() })
  .meta({ id: 'Health' });

/** Our OAuth client ID metadata document (draft-ietf-oauth-client-id-metadata-document): its URL is our `client_id`. */
export const ClientMetadata = z
  .object({
    client_id: z.url(),
    client_name: z.string(),
    client_uri: z.url(),
    redirect_uris: z.array(z.url()),
    grant_types: z.array(z.string()),
    response_types: z.array(z.string()),
    token_endpoint_auth_method: z.string(),
  })
  .meta({ id: 'ClientMetadata' });
