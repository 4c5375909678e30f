// Admin keys are the only ones the admin API takes. Other kinds of key fail with a bare 401, so
// they are caught here, before any request, with a message that says which key to use instead.
import { InputError } from '../action/inputs.ts';

export function checkAdminKey(input: string, key: string): string {
  const trimmed = key.trim();
  if (trimmed === '') throw new InputError(input, 'is empty. Pass your admin API key from a secret, for example ${{ secrets.DOCS_ADMIN_KEY }}.');
  if (trimmed.startsWith('mint_dsc_')) {
    throw new InputError(input, 'is an assistant key (mint_dsc_…), not an admin key. Create an admin key (it starts with mint_) under Settings → API keys.');
  }
  if (trimmed.startsWith('mint_us_')) {
    throw new InputError(input, 'is a user key (mint_us_…), not an admin key. Create an admin key (it starts with mint_) under Settings → API keys.');
  }
  if (!trimmed.startsWith('mint_')) {
    throw new InputError(input, 'does not look like an admin API key: admin keys start with mint_. Check the secret it comes from.');
  }
  return trimmed;
}
