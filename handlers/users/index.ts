import type { AnyRoute } from '../../lib/http/route.ts';
import usersList from './list.ts';
import usersCreate from './create.ts';
import usersUpdate from './update.ts';
import usersDelete from './delete.ts';
import usersResetTotp from './reset-totp.ts';

/** The routes under /api/users, each in the file its URL names (the registry test checks it). */
export const routes = [usersList, usersCreate, usersUpdate, usersDelete, usersResetTotp] as const satisfies readonly AnyRoute[];
