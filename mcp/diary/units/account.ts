/** The current-user body as the canonical account of `get_user_info`. */
import { compact, isObject, presentText, type Json } from './json.ts';

/** Current-user body → canonical account; names and country omitted when empty. */
export function toAccount(body: unknown): Json {
  const user = isObject(body) && isObject(body.user) ? body.user : {};
  return compact({
    id: user.id,
    email: user.userName,
    first_name: presentText(user.firstName),
    last_name: presentText(user.lastName),
    country: presentText(user.country),
  });
}
