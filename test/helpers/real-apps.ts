// Real open-source web applications for the synthesis acceptance suite (installed and seeded by
// scripts/acceptance-setup.sh from Debian packages): each is served on 127.0.0.1 by `php -S` (or,
// Fossil, by its own `fossil server`) and stopped by its PID. Recorded HARs are rebased onto the port a test started the app on.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export interface RealApp {
  name: 'dokuwiki' | 'phpmyadmin' | 'mediawiki' | 'wordpress' | 'fossil' | 'redmine';
  /** The PHP document root (Fossil: the repository file; Redmine: the Rails application). */
  docroot: string;
  /** Port the fixtures were recorded on. */
  recordedPort: number;
}

export const APPS: Record<RealApp['name'], RealApp> = {
  dokuwiki: { name: 'dokuwiki', docroot: '/usr/share/dokuwiki', recordedPort: 8931 },
  phpmyadmin: { name: 'phpmyadmin', docroot: '/usr/share/phpmyadmin', recordedPort: 8932 },
  mediawiki: { name: 'mediawiki', docroot: '/var/lib/mediawiki', recordedPort: 8933 },
  wordpress: { name: 'wordpress', docroot: '/usr/share/wordpress', recordedPort: 8934 },
  fossil: { name: 'fossil', docroot: '/var/lib/cs-acceptance/fossil/repo.fossil', recordedPort: 8935 },
  redmine: { name: 'redmine', docroot: '/usr/share/redmine', recordedPort: 8936 },
};

export const appInstalled = (a: RealApp) =>
  a.name === 'fossil'
    ? fs.existsSync(a.docroot) && fs.existsSync('/usr/bin/fossil')
    : a.name === 'redmine'
      ? fs.existsSync('/etc/redmine/default/database.yml') && fs.existsSync('/usr/bin/rackup')
      : fs.existsSync(a.docroot) &&
        fs.existsSync('/usr/bin/php') &&
        (a.name !== 'mediawiki' || fs.existsSync('/etc/mediawiki/LocalSettings.php')) &&
        (a.name !== 'wordpress' || fs.existsSync('/etc/wordpress/config-127.0.0.1.php'));

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
    s.on('error', reject);
  });
}

export async function serveApp(a: RealApp, port?: number): Promise<{ url: string; port: number; close: () => Promise<void> }> {
  const p = port ?? (await freePort());
  const child: ChildProcess =
    a.name === 'fossil'
      ? spawn('fossil', ['server', '--localhost', '--port', String(p), a.docroot], {
          stdio: 'ignore',
          env: { ...process.env, USER: 'admin' },
        })
      : a.name === 'redmine'
        ? // (WEBrick is not in Redmine's Gemfile: loaded before Bundler narrows the load path.)
          spawn('rackup', ['-s', 'webrick', '-o', '127.0.0.1', '-p', String(p), 'config.ru'], {
            cwd: a.docroot,
            stdio: 'ignore',
            env: { ...process.env, RUBYOPT: '-rwebrick', RAILS_ENV: 'production' },
          })
        : spawn('php', ['-S', `127.0.0.1:${p}`, '-t', a.docroot], { stdio: 'ignore' });
  const url = `http://127.0.0.1:${p}`;
  // (Rails takes ~15-30 s to boot on 2 cores; PHP and Fossil answer at once.)
  for (let i = 0; i < (a.name === 'redmine' ? 1200 : 100); i++) {
    const ok = await fetch(`${url}/`).then(
      () => true,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port: p,
    close: async () => {
      if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGTERM');
    },
  };
}

/** A recorded HAR moved onto another origin (the app's port in this test). */
export function rebaseHar(text: string, from: number, to: number): string {
  return text.split(`127.0.0.1:${from}`).join(`127.0.0.1:${to}`);
}
