// The portal's users: Authelia's users database is the record (an operator may edit it by hand),
// so every change reads the file, edits it and writes it back, one change at a time.
import type { ConfigStore } from '../config.ts';
import { AppError, errorMessage } from '../errors.ts';
import { jsonBytes } from '../json-bytes.ts';
import { serialQueue } from '../keyed-lock.ts';
import type { Logger } from '../log.ts';
import type { PortalUser, System } from '../system/types.ts';
import { USER_ERRORS } from './errors.ts';
import type { PasswordHasher } from './password-hasher.ts';
import type { PublicUser, UserCreate, UserUpdate } from './schema.ts';
import { newTotp } from './totp.ts';

export interface UserDeps {
  config: ConfigStore;
  system: System;
  log: Logger;
  hasher: PasswordHasher;
}

const publicUser = ({ username, displayname, email, groups }: PortalUser): PublicUser => ({ username, displayname, email, groups: [...groups] });

export class UserService {
  readonly #deps: UserDeps;
  /** Read-modify-write of the database, one at a time: two deletes cannot both see two users. */
  readonly #serial = serialQueue();
  readonly #restartSerial = serialQueue();
  #restartQueued: Promise<void> | null = null;
  #listCache: { users: readonly PortalUser[]; bytes: Uint8Array<ArrayBuffer> } | null = null;

  constructor(deps: UserDeps) {
    this.#deps = deps;
  }

  /** `{"users":[...]}` sorted by username, serialized again only when the database changed. */
  async listJson(): Promise<Uint8Array<ArrayBuffer>> {
    const users = await this.#read();
    if (this.#listCache?.users !== users) this.#listCache = { users, bytes: jsonBytes({ users: users.map(publicUser) }) };
    return this.#listCache.bytes;
  }

  async exists(username: string): Promise<boolean> {
    return (await this.#read()).some((u) => u.username === username);
  }

  async create(input: UserCreate): Promise<PublicUser> {
    // checked before hashing as well, so a duplicate does not cost a second of CPU
    if (await this.exists(input.username)) throw new AppError(409, USER_ERRORS.exists);
    const user: PortalUser = { ...input, password: await this.#hash(input.password) };
    await this.#change((users) => {
      this.#assertAbsent(users, input.username);
      return [...users, user];
    });
    this.#deps.log.info(`Portal user '${user.username}' created`);
    await this.#restartPortal();
    return publicUser(user);
  }

  async update(username: string, patch: UserUpdate): Promise<PublicUser> {
    this.#find(await this.#read(), username);
    const password = patch.password === undefined ? undefined : await this.#hash(patch.password);
    const next = await this.#change((users) => {
      const current = this.#find(users, username);
      const updated: PortalUser = {
        ...current,
        displayname: patch.displayname ?? current.displayname,
        email: patch.email ?? current.email,
        groups: patch.groups ?? current.groups,
        password: password ?? current.password,
      };
      return users.map((u) => (u.username === username ? updated : u));
    });
    this.#deps.log.info(`Portal user '${username}' updated (${Object.keys(patch).join(', ')})`);
    await this.#restartPortal();
    return publicUser(this.#find(next, username));
  }

  /**
   * Runs `task` with the usernames while no change of the database can start: a site saving its
   * allowed users cannot race a delete of one of them.
   */
  whileUnchanged<T>(task: (usernames: ReadonlySet<string>) => Promise<T>): Promise<T> {
    return this.#serial(async () => task(new Set((await this.#read()).map((u) => u.username))));
  }

  /** `whileUnchanged` with the whole users (their groups too): access rules check names against them. */
  whileUsersUnchanged<T>(task: (users: readonly PortalUser[]) => Promise<T>): Promise<T> {
    return this.#serial(async () => task(await this.#read()));
  }

  /**
   * Rewrites every user's groups through `edit` (a group renamed, deleted or given new members),
   * then `after` while no other change of the database can start; `after` throwing writes the
   * old users back. The portal is restarted once, after both.
   */
  async editGroups(edit: (user: PortalUser) => string[], after: () => Promise<void> = async () => {}): Promise<void> {
    await this.#serial(async () => {
      const before = await this.#read();
      const next = before.map((u) => ({ ...u, groups: [...new Set(edit(u))] }));
      const same = next.every((u, i) => u.groups.length === before[i]!.groups.length && u.groups.every((g, j) => g === before[i]!.groups[j]));
      if (same) return void (await after());
      await this.#write(next);
      try {
        await after();
      } catch (error) {
        await this.#write(before).catch((undo: unknown) => this.#deps.log.warn(`groups could not be written back: ${errorMessage(undo)}`));
        throw error;
      }
    });
    await this.#restartPortal();
  }

  async #write(users: readonly PortalUser[]): Promise<void> {
    try {
      await this.#deps.system.authPortal.writeUsers(users);
    } catch (error) {
      throw new AppError(500, USER_ERRORS.write, errorMessage(error));
    }
  }

  async delete(username: string): Promise<void> {
    await this.#change((users) => {
      this.#find(users, username);
      if (users.length <= 1) throw new AppError(400, USER_ERRORS.lastUser);
      // a site that lists the user keeps the name, which then matches no one: taken off the list, an
      // emptied list would let every signed-in user in (docs/decisions.md, Sites)
      return users.filter((u) => u.username !== username);
    });
    this.#deps.log.info(`Portal user '${username}' deleted`);
    await this.#restartPortal();
  }

  /** A new secret, stored by the portal at once; the portal is not restarted (spec). */
  async resetTotp(username: string): Promise<string> {
    return this.#serial(async () => {
      this.#find(await this.#read(), username);
      return this.#setNewTotp(username);
    });
  }

  /** For a user just made (an accepted invitation): the URI, or null when the portal refused it. */
  async enrollTotp(username: string): Promise<string | null> {
    try {
      return await this.#serial(() => this.#setNewTotp(username));
    } catch (error) {
      const reason = error instanceof AppError ? `${error.message}: ${String(error.details)}` : errorMessage(error);
      this.#deps.log.warn(`TOTP enrollment of '${username}' failed; an admin can reset it: ${reason}`);
      return null;
    }
  }

  async #setNewTotp(username: string): Promise<string> {
    const issuer = this.#deps.config.value.domain ?? this.#deps.config.value.ip;
    const { secret, uri } = newTotp(issuer, username);
    try {
      await this.#deps.system.authPortal.setTotp(username, secret);
    } catch (error) {
      throw new AppError(500, USER_ERRORS.totp, errorMessage(error));
    }
    this.#deps.log.info(`TOTP secret of portal user '${username}' replaced`);
    return uri;
  }

  async #read(): Promise<readonly PortalUser[]> {
    try {
      return await this.#deps.system.authPortal.readUsers();
    } catch (error) {
      throw new AppError(500, USER_ERRORS.read, errorMessage(error));
    }
  }

  async #hash(password: string): Promise<string> {
    try {
      return await this.#deps.hasher.hash(password);
    } catch (error) {
      throw new AppError(500, USER_ERRORS.hash, errorMessage(error));
    }
  }

  /** Reads the database, applies `edit` (which may throw an AppError), writes and returns the result. */
  #change(edit: (users: readonly PortalUser[]) => PortalUser[]): Promise<readonly PortalUser[]> {
    return this.#serial(async () => {
      const next = edit(await this.#read());
      try {
        await this.#deps.system.authPortal.writeUsers(next);
      } catch (error) {
        throw new AppError(500, USER_ERRORS.write, errorMessage(error));
      }
      return next;
    });
  }

  #find(users: readonly PortalUser[], username: string): PortalUser {
    const user = users.find((u) => u.username === username);
    if (!user) throw new AppError(404, USER_ERRORS.notFound);
    return user;
  }

  #assertAbsent(users: readonly PortalUser[], username: string): void {
    if (users.some((u) => u.username === username)) throw new AppError(409, USER_ERRORS.exists);
  }

  /**
   * The portal reloads its users only on restart. A restart asked for while another waits for its
   * turn joins that one (it has not started, so it will load this change); a failure is logged
   * and the change stands.
   */
  async #restartPortal(): Promise<void> {
    const restart = (this.#restartQueued ??= this.#restartSerial(() => {
      this.#restartQueued = null;
      return this.#deps.system.authPortal.restart();
    }));
    try {
      await restart;
    } catch (error) {
      this.#deps.log.warn(`The portal did not restart after a user change (the change is saved): ${errorMessage(error)}`);
    }
  }
}
