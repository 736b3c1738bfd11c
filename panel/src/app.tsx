// The root: the public invitation page, else the onboarding wizard until COMPLETED, else the pages.
import { useEffect, useState } from 'preact/hooks';
import { api, describe } from './api.ts';
import { PageBoundary } from './components/boundary.tsx';
import { Dialogs } from './components/dialogs.tsx';
import { Shell } from './components/layout.tsx';
import { Toasts } from './components/toasts.tsx';
import { ErrorText, Loading } from './components/notice.tsx';
import { AccessPage } from './pages/access.tsx';
import { AlertsPage } from './pages/alerts.tsx';
import { AuditPage } from './pages/audit.tsx';
import { CertsPage } from './pages/certs.tsx';
import { DashboardPage } from './pages/dashboard.tsx';
import { InvitePage } from './pages/invite.tsx';
import { OnboardingPage } from './pages/onboarding.tsx';
import { PluginPage, PluginsPage } from './pages/plugins.tsx';
import { PushInstallPage } from './pages/push-install.tsx';
import { ServicesPage } from './pages/services.tsx';
import { SettingsPage } from './pages/settings.tsx';
import { SitesPage } from './pages/sites.tsx';
import { TicketsPage } from './pages/tickets.tsx';
import { TunnelsPage } from './pages/tunnels.tsx';
import { TunnelPage } from './pages/tunnel.tsx';
import { StreamTunnelPage } from './pages/stream-tunnel.tsx';
import { UsersPage } from './pages/users.tsx';
import { currentPath } from './router.ts';
import { publicBase } from './public-links.ts';

const PAGES: Record<string, () => preact.JSX.Element> = {
  '/': DashboardPage,
  '/tunnels': TunnelsPage,
  '/sites': SitesPage,
  '/services': ServicesPage,
  '/users': UsersPage,
  '/access': AccessPage,
  '/certs': CertsPage,
  '/tickets': TicketsPage,
  '/plugins': PluginsPage,
  '/plugins/push-install': PushInstallPage,
  '/alerts': AlertsPage,
  '/audit': AuditPage,
  '/settings': SettingsPage,
};

function Page({ path }: { path: string }) {
  const Found = PAGES[path];
  if (Found) return <Found />;
  // before the HTTP tunnel's page: `/tunnels/streams/<id>` is a TCP or UDP tunnel's
  if (path.startsWith('/tunnels/streams/')) return <StreamTunnelPage id={decodeURIComponent(path.slice('/tunnels/streams/'.length))} />;
  if (path.startsWith('/tunnels/')) return <TunnelPage id={decodeURIComponent(path.slice('/tunnels/'.length))} />;
  if (path.startsWith('/plugins/')) return <PluginPage name={decodeURIComponent(path.slice('/plugins/'.length))} />;
  return <><h1>Page not found</h1><p>No page at {path}. <a href="/">Back to the dashboard</a>.</p></>;
}

function AdminApp() {
  const [status, setStatus] = useState<string>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    api('GET', '/api/onboarding/status').then((s) => {
      if (s.publicLinks) publicBase.value = s.publicLinks;
      setStatus(s.status);
    }, (e) => setError(describe(e)));
  }, []);
  if (error) return <Shell nav={false}><h1>relay-panel</h1><ErrorText message={error} /></Shell>;
  if (!status) return <Shell nav={false}><Loading /></Shell>;
  if (status !== 'COMPLETED') return <Shell nav={false}><OnboardingPage onFinished={() => setStatus('COMPLETED')} /></Shell>;
  const path = currentPath.value;
  return <Shell nav><PageBoundary key={path}><Page path={path} /></PageBoundary></Shell>;
}

export function App() {
  const path = currentPath.value;
  return (
    <>
      {path.startsWith('/invite/') ? <Shell nav={false}><InvitePage token={decodeURIComponent(path.slice('/invite/'.length))} /></Shell> : <AdminApp />}
      <Dialogs />
      <Toasts />
    </>
  );
}
