import { ADMIN_USERNAME, generatePassword, withAdmin } from '../admin-account.ts';
import type { ProvisioningTask } from './context.ts';

// Task 2. install keeps the portal's secrets and storage key across retries (the adapter makes them
// once); the admin user gets a fresh random password each run, stored only as a bcrypt hash. The
// user is handed to install, which writes it before the unit first starts: Authelia 4.38 will not
// start on a users database without users.
export const installAuthPortal: ProvisioningTask = {
  id: 'auth-portal',
  title: 'Install the authentication portal',
  async run(ctx) {
    const { system, config, domain, email, log } = ctx;
    log(`Creating the portal user '${ADMIN_USERNAME}' with a random password (bcrypt, cost 12)`);
    const password = generatePassword();
    const hash = await ctx.hashPassword(password);
    const users = withAdmin(await system.authPortal.readUsers(), { hash, email, adminGroup: config.value.system.authelia.adminGroup });
    log(`Installing the authentication portal for ${domain}`);
    await system.authPortal.install({ domain, users });
    ctx.adminPassword = password;
    // a retry finds the unit running already: enabling it again does not make it read the new files
    log('Restarting the portal so it loads the user database');
    await system.authPortal.restart();
    return `Authentication portal installed, listening on 127.0.0.1:${config.value.system.ports.authPortal}`;
  },
};
