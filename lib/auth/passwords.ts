// Portal passwords are stored only as bcrypt hashes, at cost 12 as the spec asks for every portal
// password (the onboarding's `admin` user and, later, users created through the panel).
import bcrypt from 'bcryptjs';

export const BCRYPT_COST = 12;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, BCRYPT_COST);
}
