// Real open-source web applications for the synthesis acceptance suite (installed and seeded by
// scripts/acceptance-setup.sh from Debian packages): each is served on 127.0.0.1 by `php -S` (Fossil
// by `fossil server`, Redmine by rackup, Django by `manage.py runserver`, Directus by `directus start`, Request Tracker by `rt-server`, Ghost by its own `node index.js`, Transmission by `transmission-daemon`, Jupyter by `jupyter-notebook`, qBittorrent by `qbittorrent-nox`, Verdaccio by its own bin, Radicale by `python3 -m radicale`, RabbitMQ, Syncthing, Prometheus, Tomcat, Roundcube, Monit, Shaarli, ZNC, Zabbix, Vendure, PostfixAdmin, Nagios, tt-rss, Icinga Web, TiddlyWiki, Deluge, Cacti, Node-RED, Unleash, n8n, Rspamd, CUPS, hledger-web, HAProxy, Supervisor, gitweb, cgit, Gitit, ikiwiki and LDAP Account Manager by their setup's `serve.sh`) and stopped by its PID. Recorded HARs are rebased onto the
// port a test started the app on.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import Database from 'better-sqlite3';

export interface RealApp {
  name:
    | 'dokuwiki'
    | 'phpmyadmin'
    | 'mediawiki'
    | 'wordpress'
    | 'fossil'
    | 'redmine'
    | 'django'
    | 'directus'
    | 'adminer'
    | 'rt'
    | 'ghost'
    | 'transmission'
    | 'jupyter'
    | 'qbittorrent'
    | 'deluge'
    | 'cacti'
    | 'verdaccio'
    | 'radicale'
    | 'rabbitmq'
    | 'syncthing'
    | 'prometheus'
    | 'tomcat'
    | 'roundcube'
    | 'monit'
    | 'shaarli'
    | 'znc'
    | 'zabbix'
    | 'vendure'
    | 'postfixadmin'
    | 'nagios'
    | 'ttrss'
    | 'icingaweb'
    | 'tiddlywiki'
    | 'nodered'
    | 'unleash'
    | 'n8n'
    | 'rspamd'
    | 'cups'
    | 'hledger'
    | 'haproxy'
    | 'supervisor'
    | 'gitweb'
    | 'cgit'
    | 'gitit'
    | 'ikiwiki'
    | 'lam'
    | 'phpldapadmin'
    | 'davical';
  /** The PHP document root (Fossil: the repository file; Redmine: the Rails application). */
  docroot: string;
  /** Port the fixtures were recorded on. */
  recordedPort: number;
  /** Files that exist once scripts/acceptance-setup.sh installed and seeded it. */
  needs: string[];
  /** Its server's command on `port` (default `php -S`). */
  server?: (port: number) => { cmd: string; args: string[]; cwd?: string; env?: Record<string, string> };
  /** A path that answers 2xx only once the app is up (default: any answer to `/`). */
  readyPath?: string;
  /** What that answer's body holds once the app is up (an app that answers 2xx while it starts). */
  readyBody?: RegExp;
  /** How long it may take to answer its first request (default 5 s; Rails boots in 15-30 s). */
  bootMs?: number;
}

const php = (docroot: string, ...more: string[]) => [docroot, '/usr/bin/php', ...more];

export const APPS: Record<RealApp['name'], RealApp> = {
  dokuwiki: { name: 'dokuwiki', docroot: '/usr/share/dokuwiki', recordedPort: 8931, needs: php('/usr/share/dokuwiki') },
  phpmyadmin: { name: 'phpmyadmin', docroot: '/usr/share/phpmyadmin', recordedPort: 8932, needs: php('/usr/share/phpmyadmin') },
  // (Adminer is one PHP file: its directory is the document root, adminer.php the page.)
  adminer: {
    name: 'adminer',
    docroot: '/usr/share/adminer/adminer',
    recordedPort: 8939,
    needs: php('/usr/share/adminer/adminer/index.php'),
  },
  mediawiki: {
    name: 'mediawiki',
    docroot: '/var/lib/mediawiki',
    recordedPort: 8933,
    needs: php('/var/lib/mediawiki', '/etc/mediawiki/LocalSettings.php'),
  },
  wordpress: {
    name: 'wordpress',
    docroot: '/usr/share/wordpress',
    recordedPort: 8934,
    needs: php('/usr/share/wordpress', '/etc/wordpress/config-127.0.0.1.php'),
  },
  fossil: {
    name: 'fossil',
    docroot: '/var/lib/cs-acceptance/fossil/repo.fossil',
    recordedPort: 8935,
    needs: ['/var/lib/cs-acceptance/fossil/repo.fossil', '/usr/bin/fossil'],
    server: (port) => ({
      cmd: 'fossil',
      args: ['server', '--localhost', '--port', String(port), '/var/lib/cs-acceptance/fossil/repo.fossil'],
      env: { USER: 'admin' },
    }),
  },
  redmine: {
    name: 'redmine',
    docroot: '/usr/share/redmine',
    recordedPort: 8936,
    needs: ['/etc/redmine/default/database.yml', '/usr/bin/rackup'],
    // (WEBrick is not in Redmine's Gemfile: loaded before Bundler narrows the load path.)
    server: (port) => ({
      cmd: 'rackup',
      args: ['-s', 'webrick', '-o', '127.0.0.1', '-p', String(port), 'config.ru'],
      cwd: '/usr/share/redmine',
      env: { RUBYOPT: '-rwebrick', RAILS_ENV: 'production' },
    }),
    bootMs: 60_000,
  },
  django: {
    name: 'django',
    docroot: '/var/lib/cs-acceptance/django',
    recordedPort: 8937,
    needs: ['/var/lib/cs-acceptance/django/db.sqlite3', '/usr/bin/python3'],
    // (Debian's python3, which has python3-django; --insecure serves the admin's CSS with DEBUG off.)
    server: (port) => ({
      cmd: '/usr/bin/python3',
      args: ['manage.py', 'runserver', '--noreload', '--insecure', `127.0.0.1:${port}`],
      cwd: '/var/lib/cs-acceptance/django',
    }),
    bootMs: 15_000,
  },
  directus: {
    name: 'directus',
    docroot: '/var/lib/cs-acceptance/directus',
    recordedPort: 8938,
    needs: ['/var/lib/cs-acceptance/directus/.seeded'],
    // (Its .env holds the database and keys; where it listens comes from here.)
    server: (port) => ({
      cmd: '/var/lib/cs-acceptance/directus/node_modules/.bin/directus',
      args: ['start'],
      cwd: '/var/lib/cs-acceptance/directus',
      env: { HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` },
    }),
    bootMs: 30_000,
  },
  rt: {
    name: 'rt',
    docroot: '/usr/share/request-tracker5',
    recordedPort: 8940,
    needs: ['/var/lib/cs-acceptance/rt/.seeded', '/usr/share/request-tracker5/libexec/rt-server'],
    // (Standalone: one process, ended by its PID; RT_ACC_PORT tells its site config the base URL.)
    server: (port) => ({
      cmd: '/usr/share/request-tracker5/libexec/rt-server',
      args: ['--server', 'Standalone', '--host', '127.0.0.1', '--port', String(port)],
      env: { RT_ACC_PORT: String(port) },
    }),
    bootMs: 30_000,
  },
  ghost: {
    name: 'ghost',
    docroot: '/var/lib/cs-acceptance/ghost/app',
    recordedPort: 8941,
    needs: ['/var/lib/cs-acceptance/ghost/.seeded'],
    // (Its config file holds the database and paths; nconf reads `url` and `server__port` from the
    // environment over it.)
    server: (port) => ({
      cmd: process.execPath,
      args: ['index.js'],
      cwd: '/var/lib/cs-acceptance/ghost/app',
      env: { NODE_ENV: 'production', url: `http://127.0.0.1:${port}`, server__port: String(port) },
    }),
    // (Its site answers while the admin API still boots.)
    readyPath: '/ghost/api/admin/site/',
    bootMs: 40_000,
  },
  transmission: {
    name: 'transmission',
    docroot: '/var/lib/cs-acceptance/transmission',
    recordedPort: 8953,
    needs: ['/var/lib/cs-acceptance/transmission/.seeded', '/usr/bin/transmission-daemon'],
    // (Its peer port beside the web one; settings.json keeps DHT, LPD, PEX and uTP off and the
    // torrents paused, so nothing leaves loopback. The web UI and its RPC need HTTP Basic auth.)
    server: (port) => ({
      cmd: 'transmission-daemon',
      args: [
        '-f',
        '-g',
        '/var/lib/cs-acceptance/transmission/config',
        '-p',
        String(port),
        '-P',
        String(port + 1),
        '-t',
        '-u',
        TRANSMISSION_USER.username,
        '-v',
        TRANSMISSION_USER.password,
      ],
    }),
  },
  jupyter: {
    name: 'jupyter',
    docroot: '/var/lib/cs-acceptance/jupyter/root',
    recordedPort: 8955,
    needs: ['/var/lib/cs-acceptance/jupyter/.seeded', '/usr/bin/jupyter-notebook'],
    // (Debian's python3, which has the notebook package; its config holds the password's hash.)
    server: (port) => ({
      cmd: '/usr/bin/python3',
      args: [
        '/usr/bin/jupyter-notebook',
        '--no-browser',
        '--allow-root',
        '--ip=127.0.0.1',
        `--port=${port}`,
        '--notebook-dir=/var/lib/cs-acceptance/jupyter/root',
      ],
      env: {
        JUPYTER_CONFIG_DIR: '/var/lib/cs-acceptance/jupyter/config',
        JUPYTER_DATA_DIR: '/var/lib/cs-acceptance/jupyter/data',
        JUPYTER_RUNTIME_DIR: '/var/lib/cs-acceptance/jupyter/runtime',
      },
    }),
    bootMs: 20_000,
  },
  qbittorrent: {
    name: 'qbittorrent',
    docroot: '/var/lib/cs-acceptance/qbittorrent',
    recordedPort: 8957,
    needs: ['/var/lib/cs-acceptance/qbittorrent/.seeded', '/usr/bin/qbittorrent-nox'],
    // (Its peer port beside the web one; its profile keeps DHT, LSD, PeX and port mapping off, the
    // torrents paused and every socket on loopback.)
    server: (port) => ({
      cmd: 'qbittorrent-nox',
      args: ['--profile=/var/lib/cs-acceptance/qbittorrent/profile', `--webui-port=${port}`, `--torrenting-port=${port + 1}`],
    }),
  },
  deluge: {
    name: 'deluge',
    docroot: '/var/lib/cs-acceptance/deluge',
    recordedPort: 9005,
    needs: ['/var/lib/cs-acceptance/deluge/.seeded', '/usr/bin/deluge-web', '/usr/bin/deluged'],
    // (deluge-web on the port, its daemon on the next one, peers on the one after, all on loopback;
    // a fresh copy of the seeded configuration per start.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/deluge/serve.sh', String(port)] }),
    bootMs: 15_000,
  },
  cacti: {
    name: 'cacti',
    docroot: '/usr/share/cacti/site',
    recordedPort: 9010,
    needs: ['/var/lib/cs-acceptance/cacti/.seeded', '/usr/share/cacti/site/host.php'],
    // (`php -S` over a fresh MariaDB copy of the seed database per start, dropped when it stops.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/cacti/serve.sh', String(port)] }),
    readyPath: '/index.php',
    bootMs: 20_000,
  },
  verdaccio: {
    name: 'verdaccio',
    docroot: '/var/lib/cs-acceptance/verdaccio',
    recordedPort: 8959,
    needs: ['/var/lib/cs-acceptance/verdaccio/.seeded'],
    // (No uplinks in its config: it never reaches the public registry.)
    server: (port) => ({
      cmd: process.execPath,
      args: [
        '/var/lib/cs-acceptance/verdaccio/node_modules/verdaccio/bin/verdaccio',
        '--config',
        '/var/lib/cs-acceptance/verdaccio/config.yaml',
        '--listen',
        `127.0.0.1:${port}`,
      ],
    }),
    readyPath: '/-/ping',
    bootMs: 20_000,
  },
  radicale: {
    name: 'radicale',
    docroot: '/var/lib/cs-acceptance/radicale',
    recordedPort: 8961,
    needs: ['/var/lib/cs-acceptance/radicale/.seeded', '/usr/lib/python3/dist-packages/radicale'],
    server: (port) => ({
      cmd: '/usr/bin/python3',
      args: ['-m', 'radicale', '--config', '/var/lib/cs-acceptance/radicale/config', '--server-hosts', `127.0.0.1:${port}`],
    }),
    readyPath: '/.web/',
    bootMs: 10_000,
  },
  rabbitmq: {
    name: 'rabbitmq',
    docroot: '/var/lib/cs-acceptance/rabbitmq',
    recordedPort: 8963,
    needs: ['/var/lib/cs-acceptance/rabbitmq/.seeded', '/usr/lib/rabbitmq/bin/rabbitmq-server'],
    // (A fresh node per start: management on `port`, Erlang distribution on `port + 1`, no AMQP
    // listener; it imports the seeded users, virtual hosts and queues.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/rabbitmq/serve.sh', String(port)] }),
    readyPath: '/',
    bootMs: 60_000,
  },
  syncthing: {
    name: 'syncthing',
    docroot: '/var/lib/cs-acceptance/syncthing',
    recordedPort: 8965,
    needs: ['/var/lib/cs-acceptance/syncthing/.seeded', '/usr/bin/syncthing'],
    // (A copy of the seeded home per start; discovery, relays and NAT traversal are off.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/syncthing/serve.sh', String(port)] }),
    bootMs: 20_000,
  },
  prometheus: {
    name: 'prometheus',
    docroot: '/var/lib/cs-acceptance/prometheus',
    recordedPort: 8969,
    needs: ['/var/lib/cs-acceptance/prometheus/.seeded', '/usr/bin/prometheus'],
    // (A fresh server per start, scraping itself every second.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/prometheus/serve.sh', String(port)] }),
    readyPath: '/-/ready',
    bootMs: 20_000,
  },
  tomcat: {
    name: 'tomcat',
    docroot: '/var/lib/cs-acceptance/tomcat',
    recordedPort: 8975,
    needs: ['/var/lib/cs-acceptance/tomcat/.seeded', '/usr/share/tomcat10-admin/manager'],
    // (A fresh CATALINA_BASE per start, with the Manager, the Host Manager and three applications.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/tomcat/serve.sh', String(port)] }),
    readyPath: '/orchard/',
    bootMs: 30_000,
  },
  roundcube: {
    name: 'roundcube',
    docroot: '/var/lib/roundcube/public_html',
    recordedPort: 8977,
    needs: ['/var/lib/cs-acceptance/roundcube/.seeded', '/usr/share/roundcube/index.php', '/usr/sbin/dovecot'],
    // (A fresh Dovecot on `port + 1` with the seeded mailboxes, and Roundcube on `port`.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/roundcube/serve.sh', String(port)] }),
    readyPath: '/',
    bootMs: 15_000,
  },
  monit: {
    name: 'monit',
    docroot: '/var/lib/cs-acceptance/monit',
    recordedPort: 8979,
    needs: ['/var/lib/cs-acceptance/monit/.seeded', '/usr/bin/monit'],
    // (A fresh monitrc per start: a file, two directories, a program and the system.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/monit/serve.sh', String(port)] }),
    bootMs: 15_000,
  },
  shaarli: {
    name: 'shaarli',
    docroot: '/usr/share/shaarli',
    recordedPort: 8987,
    needs: ['/var/lib/cs-acceptance/shaarli/.seeded', '/usr/share/shaarli/index.php'],
    // (Its seeded data restored in /var/lib/shaarli/data on every start.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/shaarli/serve.sh', String(port)] }),
  },
  znc: {
    name: 'znc',
    docroot: '/var/lib/cs-acceptance/znc',
    recordedPort: 8989,
    needs: ['/var/lib/cs-acceptance/znc/.seeded', '/usr/bin/znc'],
    // (A fresh data dir per start: an admin and two networks that connect nowhere.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/znc/serve.sh', String(port)] }),
    bootMs: 15_000,
  },
  zabbix: {
    name: 'zabbix',
    docroot: '/usr/share/zabbix',
    recordedPort: 8991,
    needs: ['/var/lib/cs-acceptance/zabbix/.seeded', '/usr/share/zabbix/index.php', '/etc/zabbix/zabbix.conf.php'],
    // (A fresh PostgreSQL database from the seed's template per start, dropped when it stops.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/zabbix/serve.sh', String(port)] }),
    bootMs: 15_000,
  },
  vendure: {
    name: 'vendure',
    docroot: '/var/lib/cs-acceptance/vendure',
    recordedPort: 8995,
    needs: ['/var/lib/cs-acceptance/vendure/.seeded', '/var/lib/cs-acceptance/vendure/node_modules/@vendure/core/package.json'],
    // (A fresh PostgreSQL database from the seed's template per start, dropped when it stops.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/vendure/serve.sh', String(port)] }),
    readyPath: '/admin/',
    bootMs: 60_000,
  },
  postfixadmin: {
    name: 'postfixadmin',
    docroot: '/usr/share/postfixadmin/public',
    recordedPort: 8997,
    needs: ['/var/lib/cs-acceptance/postfixadmin/.seeded', '/usr/share/postfixadmin/public/index.php'],
    // (A fresh copy of the seeded SQLite database per start, under /tmp/cs-acceptance-postfixadmin-PORT.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/postfixadmin/serve.sh', String(port)] }),
    readyPath: '/login.php',
  },
  nagios: {
    name: 'nagios',
    docroot: '/usr/share/nagios4/htdocs',
    recordedPort: 8999,
    needs: ['/var/lib/cs-acceptance/nagios/.seeded', '/usr/sbin/nagios4', '/usr/sbin/apache2'],
    // (Its own daemon and state per start under /tmp/cs-acceptance-nagios-PORT; serve.sh answers
    // once every check has run. Every page asks for Digest credentials: any answer means it is up.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/nagios/serve.sh', String(port)] }),
    bootMs: 30_000,
  },
  ttrss: {
    name: 'ttrss',
    docroot: '/usr/share/tt-rss/www',
    recordedPort: 9001,
    needs: ['/var/lib/cs-acceptance/ttrss/.seeded', '/usr/share/tt-rss/www/index.php'],
    // (A fresh PostgreSQL database from the seed's template per start, dropped when it stops.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/ttrss/serve.sh', String(port)] }),
    readyPath: '/',
    bootMs: 15_000,
  },
  icingaweb: {
    name: 'icingaweb',
    docroot: '/usr/share/icingaweb2/public',
    recordedPort: 9003,
    needs: ['/var/lib/cs-acceptance/icingaweb/.seeded', '/usr/share/icingaweb2/public/index.php'],
    // (A fresh PostgreSQL database from the seed's template and a config directory per start.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/icingaweb/serve.sh', String(port)] }),
    readyPath: '/authentication/login',
    bootMs: 15_000,
  },
  tiddlywiki: {
    name: 'tiddlywiki',
    docroot: '/var/lib/cs-acceptance/tiddlywiki',
    recordedPort: 8991,
    needs: ['/var/lib/cs-acceptance/tiddlywiki/.seeded'],
    // (A fresh copy of the seeded wiki per start, under /tmp.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/tiddlywiki/serve.sh', String(port)] }),
    bootMs: 15_000,
  },
  nodered: {
    name: 'nodered',
    docroot: '/var/lib/cs-acceptance/nodered',
    recordedPort: 8996,
    needs: ['/var/lib/cs-acceptance/nodered/.seeded'],
    // (A fresh copy of the seeded user directory per start, under /tmp.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/nodered/serve.sh', String(port)] }),
    readyPath: '/auth/login',
    bootMs: 20_000,
  },
  unleash: {
    name: 'unleash',
    docroot: '/var/lib/cs-acceptance/unleash',
    recordedPort: 8993,
    needs: ['/var/lib/cs-acceptance/unleash/.seeded'],
    // (A fresh PostgreSQL database copied from the seed per start; its migrations are in the seed.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/unleash/serve.sh', String(port)] }),
    readyPath: '/health',
    bootMs: 40_000,
  },
  n8n: {
    name: 'n8n',
    docroot: '/var/lib/cs-acceptance/n8n',
    recordedPort: 8994,
    needs: ['/var/lib/cs-acceptance/n8n/.seeded'],
    // (A fresh copy of the seeded user folder per start. It answers "n8n is starting up" with 200
    // until its database is ready, then its own JSON.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/n8n/serve.sh', String(port)] }),
    readyPath: '/rest/settings',
    readyBody: /"data"/,
    bootMs: 60_000,
  },
  rspamd: {
    name: 'rspamd',
    docroot: '/var/lib/cs-acceptance/rspamd',
    recordedPort: 8997,
    needs: ['/var/lib/cs-acceptance/rspamd/.seeded', '/usr/bin/rspamd', '/usr/bin/redis-server'],
    // (A fresh copy of the seeded lists and a private Redis per start. Its controller loads every
    // rule first, 15-20 s; until then nothing listens.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/rspamd/serve.sh', String(port)] }),
    readyPath: '/ping',
    bootMs: 60_000,
  },
  cups: {
    name: 'cups',
    docroot: '/var/lib/cs-acceptance/cups',
    recordedPort: 8998,
    needs: ['/var/lib/cs-acceptance/cups/.seeded', '/usr/sbin/cupsd', '/usr/bin/lpstat'],
    // (A private cupsd over a fresh copy of the seeded printers and held jobs per start.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/cups/serve.sh', String(port)] }),
    readyPath: '/printers/',
    bootMs: 15_000,
  },
  hledger: {
    name: 'hledger',
    docroot: '/var/lib/cs-acceptance/hledger',
    recordedPort: 9012,
    needs: ['/var/lib/cs-acceptance/hledger/.seeded', '/usr/bin/hledger-web'],
    // (A fresh copy of the seeded journal per start.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/hledger/serve.sh', String(port)] }),
    readyPath: '/journal',
  },
  haproxy: {
    name: 'haproxy',
    docroot: '/var/lib/cs-acceptance/haproxy',
    recordedPort: 9014,
    needs: ['/var/lib/cs-acceptance/haproxy/.seeded', '/usr/sbin/haproxy'],
    // (A fresh process per start: its servers' states live in memory. Up once it answers at all:
    // every page asks for Basic auth.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/haproxy/serve.sh', String(port)] }),
  },
  supervisor: {
    name: 'supervisor',
    docroot: '/var/lib/cs-acceptance/supervisor',
    recordedPort: 9016,
    needs: ['/var/lib/cs-acceptance/supervisor/.seeded', '/usr/bin/supervisord'],
    // (A fresh supervisord per start: its processes' states live in memory. Up once it answers at
    // all: every page asks for Basic auth.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/supervisor/serve.sh', String(port)] }),
  },
  gitweb: {
    name: 'gitweb',
    docroot: '/var/lib/cs-acceptance/gitweb',
    recordedPort: 9018,
    needs: ['/var/lib/cs-acceptance/gitweb/.seeded', '/usr/share/gitweb/gitweb.cgi', '/usr/sbin/apache2'],
    // (Apache's mod_cgi on the port, its own run directory per start; the repositories are read-only.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/gitweb/serve.sh', String(port)] }),
  },
  cgit: {
    name: 'cgit',
    docroot: '/var/lib/cs-acceptance/cgit',
    recordedPort: 9020,
    // (gitweb's repositories, in cgit's markup.)
    needs: ['/var/lib/cs-acceptance/cgit/.seeded', '/var/lib/cs-acceptance/gitweb/.seeded', '/usr/lib/cgit/cgit.cgi', '/usr/sbin/apache2'],
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/cgit/serve.sh', String(port)] }),
  },
  gitit: {
    name: 'gitit',
    docroot: '/var/lib/cs-acceptance/gitit',
    recordedPort: 9022,
    needs: ['/var/lib/cs-acceptance/gitit/.seeded', '/usr/bin/gitit'],
    // (A fresh copy of the seeded wiki per start: its repository, users and sessions.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/gitit/serve.sh', String(port)] }),
    readyPath: '/_login',
  },
  ikiwiki: {
    name: 'ikiwiki',
    docroot: '/var/lib/cs-acceptance/ikiwiki',
    recordedPort: 9024,
    needs: ['/var/lib/cs-acceptance/ikiwiki/.seeded', '/usr/bin/ikiwiki', '/usr/lib/cgi-bin/omega/omega', '/usr/sbin/apache2'],
    // (Built for its port per start from a fresh copy of the seed: its repository, users and sessions.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/ikiwiki/serve.sh', String(port)] }),
  },
  lam: {
    name: 'lam',
    docroot: '/usr/share/ldap-account-manager',
    recordedPort: 9026,
    needs: ['/var/lib/cs-acceptance/lam/.seeded', '/usr/share/ldap-account-manager/templates/login.php', '/usr/sbin/slapd'],
    // (A fresh directory per start, its own slapd on a socket in the run directory.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/lam/serve.sh', String(port)] }),
    readyPath: '/templates/login.php',
  },
  phpldapadmin: {
    name: 'phpldapadmin',
    docroot: '/usr/share/phpldapadmin/htdocs',
    recordedPort: 9028,
    needs: ['/var/lib/cs-acceptance/phpldapadmin/.seeded', '/var/lib/cs-acceptance/lam/.seeded', '/usr/share/phpldapadmin/htdocs/cmd.php'],
    // (LAM's seed in a slapd of its own per start, on a socket in the run directory.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/phpldapadmin/serve.sh', String(port)] }),
    readyPath: '/index.php',
  },
  davical: {
    name: 'davical',
    docroot: '/usr/share/davical/htdocs',
    recordedPort: 9030,
    needs: ['/var/lib/cs-acceptance/davical/.seeded', '/usr/share/davical/htdocs/admin.php'],
    // (A fresh copy of the seed database per start, named by the port.)
    server: (port) => ({ cmd: '/bin/sh', args: ['/var/lib/cs-acceptance/davical/serve.sh', String(port)] }),
  },
};

export const appInstalled = (a: RealApp) => a.needs.every((f) => fs.existsSync(f));

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
  const srv = a.server?.(p) ?? { cmd: 'php', args: ['-S', `127.0.0.1:${p}`, '-t', a.docroot] };
  const child: ChildProcess = spawn(srv.cmd, srv.args, { cwd: srv.cwd, stdio: 'ignore', env: { ...process.env, ...srv.env } });
  const url = `http://127.0.0.1:${p}`;
  for (const until = Date.now() + (a.bootMs ?? 5000); Date.now() < until; ) {
    const ok = await fetch(`${url}${a.readyPath ?? '/'}`).then(
      async (r) => !a.readyPath || (r.ok && (!a.readyBody || a.readyBody.test(await r.text()))),
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

/** Ghost's seeded owner (scripts/acceptance-setup.sh). */
export const GHOST_OWNER = { email: 'owner@example.com', password: 'gh-owner-pass-1' };

/** Ghost's Admin API at `base` as its owner (a session cookie of its JSON sign-in, kept per base:
 * Ghost limits sign-ins): the parsed answer. */
export async function ghostApi(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const headers = { 'content-type': 'application/json', origin: base };
  let cookie = ghostSessions.get(base);
  if (!cookie) {
    const login = await fetch(`${base}/ghost/api/admin/session/`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ username: GHOST_OWNER.email, password: GHOST_OWNER.password }),
    });
    if (!login.ok) throw new Error(`Ghost sign-in: ${login.status} ${await login.text()}`);
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    ghostSessions.set(base, cookie);
  }
  let r = await fetch(`${base}/ghost/api/admin${path}`, {
    method,
    headers: { ...headers, cookie },
    body: body ? JSON.stringify(body) : undefined,
  });
  // (A session just made may not be readable yet: Ghost stores it after answering the sign-in.)
  for (let i = 0; r.status === 403 && i < 5; i++) {
    await new Promise((ok) => setTimeout(ok, 300));
    r = await fetch(`${base}/ghost/api/admin${path}`, {
      method,
      headers: { ...headers, cookie },
      body: body ? JSON.stringify(body) : undefined,
    });
  }
  if (!r.ok) throw new Error(`Ghost ${method} ${path}: ${r.status} ${await r.text()}`);
  return r.status === 204 ? null : r.json();
}
const ghostSessions = new Map<string, string>();

/** Transmission's web UI user (HTTP Basic; scripts/acceptance-setup.sh). */
export const TRANSMISSION_USER = { username: 'seed', password: 'tr-seed-pass-1' };

/** One call to Transmission's RPC at `base`: its answer's `arguments` (the 409 hands out the session id to send). */
export async function transmissionRpc(base: string, method: string, args: Record<string, unknown> = {}): Promise<any> {
  const auth = `Basic ${Buffer.from(`${TRANSMISSION_USER.username}:${TRANSMISSION_USER.password}`).toString('base64')}`;
  const call = (session: string) =>
    fetch(`${base}/transmission/rpc`, {
      method: 'POST',
      headers: { authorization: auth, 'x-transmission-session-id': session, 'content-type': 'application/json' },
      body: JSON.stringify({ method, arguments: args }),
    });
  let r = await call(transmissionSessions.get(base) ?? '');
  if (r.status === 409) {
    transmissionSessions.set(base, r.headers.get('x-transmission-session-id') ?? '');
    r = await call(transmissionSessions.get(base)!);
  }
  const body = (await r.json()) as { result: string; arguments: any };
  if (body.result !== 'success') throw new Error(`Transmission ${method}: ${body.result}`);
  return body.arguments;
}
const transmissionSessions = new Map<string, string>();

/** qBittorrent's web UI user (its login form; scripts/acceptance-setup.sh). */
export const QBITTORRENT_USER = { username: 'seed', password: 'qb-pass-1' };

/** qBittorrent's Web API at `base` (`/api/v2/…`; a form post when `form` is given) with an SID
 * cookie of its own sign-in, kept per base: the parsed JSON answer, or its text. */
export async function qbittorrentApi(base: string, path: string, form?: Record<string, string>): Promise<any> {
  let sid = qbittorrentSessions.get(base);
  if (!sid) {
    const login = await fetch(`${base}/api/v2/auth/login`, { method: 'POST', body: new URLSearchParams(QBITTORRENT_USER) });
    sid = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    if (!sid.startsWith('SID=')) throw new Error(`qBittorrent sign-in: ${login.status} ${await login.text()}`);
    qbittorrentSessions.set(base, sid);
  }
  const r = await fetch(`${base}/api/v2${path}`, {
    method: form ? 'POST' : 'GET',
    headers: { cookie: sid },
    body: form && new URLSearchParams(form),
  });
  if (!r.ok) throw new Error(`qBittorrent ${path}: ${r.status} ${await r.text()}`);
  const text = await r.text();
  return (r.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text;
}
const qbittorrentSessions = new Map<string, string>();

/** Deluge's web UI password (it has no user name; scripts/acceptance-setup.sh). */
export const DELUGE_PASSWORD = 'dl-pass-1';

/** Deluge's JSON-RPC at `base` (`/json`) with a session cookie of its own sign-in, kept per base: the call's result. */
export async function delugeRpc(base: string, method: string, params: unknown[] = []): Promise<any> {
  const call = (cookie: string, m: string, p: unknown[]) =>
    fetch(`${base}/json`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ method: m, params: p, id: 1 }),
    });
  let cookie = delugeSessions.get(base);
  if (!cookie) {
    const login = await call('', 'auth.login', [DELUGE_PASSWORD]);
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    if (!cookie.startsWith('_session_id=')) throw new Error(`Deluge sign-in: ${login.status} ${await login.text()}`);
    delugeSessions.set(base, cookie);
  }
  const body = (await (await call(cookie, method, params)).json()) as { result: unknown; error: { message: string } | null };
  if (body.error) throw new Error(`Deluge ${method}: ${body.error.message}`);
  return body.result;
}
const delugeSessions = new Map<string, string>();

/** Verdaccio's user (scripts/acceptance-setup.sh). */
export const VERDACCIO_USER = { username: 'seed', password: 'vd-pass-1' };

/** Verdaccio's web API at `base` (`/-/verdaccio/data/…`) with the token of its JSON sign-in: the parsed answer. */
export async function verdaccioApi(base: string, path: string): Promise<any> {
  const login = await fetch(`${base}/-/verdaccio/sec/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(VERDACCIO_USER),
  });
  if (!login.ok) throw new Error(`Verdaccio sign-in: ${login.status} ${await login.text()}`);
  const { token } = (await login.json()) as { token: string };
  const r = await fetch(`${base}/-/verdaccio/data${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!r.ok) throw new Error(`Verdaccio ${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** Radicale's user (HTTP Basic; scripts/acceptance-setup.sh). */
export const RADICALE_USER = { username: 'seed', password: 'rd-pass-1' };

/** The user's collections on Radicale at `base` (a PROPFIND of depth 1): id → displayname and description. */
export async function radicaleCollections(base: string): Promise<Record<string, { displayname: string; description: string }>> {
  const auth = `Basic ${Buffer.from(`${RADICALE_USER.username}:${RADICALE_USER.password}`).toString('base64')}`;
  const r = await fetch(`${base}/seed/`, { method: 'PROPFIND', headers: { authorization: auth, depth: '1' } });
  if (r.status !== 207) throw new Error(`Radicale PROPFIND: ${r.status} ${await r.text()}`);
  const out: Record<string, { displayname: string; description: string }> = {};
  for (const [, resp] of (await r.text()).matchAll(/<response>([\s\S]*?)<\/response>/g)) {
    const id = /<href>\/seed\/([^/<]+)\/<\/href>/.exec(resp!)?.[1];
    const text = (tag: string) => new RegExp(`<[\\w]*:?${tag}>([^<]*)<`).exec(resp!)?.[1] ?? '';
    if (id) out[id] = { displayname: text('displayname'), description: text('calendar-description') || text('addressbook-description') };
  }
  return out;
}

/** Directus's seeded admin (scripts/acceptance-setup.sh). */
export const DIRECTUS_ADMIN = { email: 'admin@example.com', password: 'dx-admin-pass-1' };

/** An access token of the admin's JSON sign-in. */
export async function directusToken(base: string): Promise<string> {
  const login = await fetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(DIRECTUS_ADMIN),
  });
  return ((await login.json()) as any).data.access_token;
}

/** Directus's own API at `base`, as its admin (a token of its JSON sign-in): the `data` of the answer. */
export async function directusApi(base: string, method: string, path: string): Promise<any> {
  const token = await directusToken(base);
  const r = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}` } });
  return r.status === 204 ? null : ((await r.json()) as any).data;
}

/** Forgets the list views Directus saved (its last search) and its user's last page: a flow starts from an unfiltered list. */
export async function directusForgetViews(base: string): Promise<void> {
  for (const p of (await directusApi(base, 'GET', '/presets?limit=-1&fields[]=id')) as { id: number }[])
    await directusApi(base, 'DELETE', `/presets/${p.id}`);
  // (It also signs its user in on the last page they saw: the content module, as after setup.)
  const token = await directusToken(base);
  await fetch(`${base}/users/me`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ last_page: '/content' }),
  });
}

/**
 * WordPress's posts, newest first, as a list screen shows its first `n`: `[id, title]` of those
 * that must be on it (newer than the n-th post's date) and of those that may be (the same date —
 * posts published in one second tie, and WordPress and MySQL may order a tie either way).
 */
export function wordpressFirstPosts(statuses: string[], n = 20): { must: string[][]; may: string[][] } {
  const rows = execFileSync(
    'mysql',
    [
      '-h127.0.0.1',
      '-uroot',
      '-N',
      '-B',
      'wordpress',
      '-e',
      `SELECT ID, post_title, post_date FROM wp_posts WHERE post_type='post' AND post_status IN (${statuses.map((s) => `'${s}'`).join(',')}) ORDER BY post_date DESC`,
    ],
    { encoding: 'utf8' },
  )
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t'));
  const cutoff = rows[Math.min(n, rows.length) - 1]?.[2] ?? '';
  return {
    must: rows.filter((r) => r[2]! > cutoff).map(([id, t]) => [id!, t!]),
    may: rows.filter((r) => r[2]! >= cutoff).map(([id, t]) => [id!, t!]),
  };
}

/** RabbitMQ's administrator (scripts/acceptance-setup.sh). */
export const RABBITMQ_USER = { username: 'seed', password: 'rq-pass-1' };

/** RabbitMQ's management API at `base` (`/api…`, Basic auth): the parsed answer (null when empty). */
export async function rabbitApi(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const auth = Buffer.from(`${RABBITMQ_USER.username}:${RABBITMQ_USER.password}`).toString('base64');
  const r = await fetch(`${base}/api${path}`, {
    method,
    headers: { authorization: `Basic ${auth}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`RabbitMQ ${method} ${path}: ${r.status} ${await r.text()}`);
  const text = await r.text();
  return text ? JSON.parse(text) : null;
}

/** Syncthing's GUI user (scripts/acceptance-setup.sh). */
export const SYNCTHING_USER = { username: 'seed', password: 'st-pass-1' };

/** Syncthing's REST API at `base` with the seeded API key: the parsed answer. */
export async function syncthingApi(base: string, path: string): Promise<any> {
  const r = await fetch(`${base}/rest${path}`, { headers: { 'x-api-key': 'cs-acceptance-syncthing-key' } });
  if (!r.ok) throw new Error(`Syncthing ${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** Prometheus' HTTP API at `base` (`/api/v1…`): the parsed answer's `data`. */
export async function prometheusApi(base: string, path: string): Promise<any> {
  const r = await fetch(`${base}/api/v1${path}`);
  if (!r.ok) throw new Error(`Prometheus ${path}: ${r.status} ${await r.text()}`);
  return (await r.json()).data;
}

/** Tomcat's seeded Manager user (manager-gui, admin-gui; scripts/acceptance-setup.sh). */
export const TOMCAT_USER = { username: 'seed', password: 'tc-pass-1' };

/** Tomcat's text interfaces (`/manager/text/...`, `/host-manager/text/...`) as the tests' own
 * `probe` user: the text of the answer, which starts with `OK - ` when the command succeeded. */
export async function tomcatText(base: string, path: string): Promise<string> {
  const r = await fetch(`${base}${path}`, { headers: { authorization: `Basic ${Buffer.from('probe:tc-probe-1').toString('base64')}` } });
  return r.text();
}

/** The applications Tomcat's Manager lists: path → { running, sessions }. */
export async function tomcatApps(base: string): Promise<Record<string, { running: boolean; sessions: number }>> {
  const text = await tomcatText(base, '/manager/text/list');
  return Object.fromEntries(
    text
      .split('\n')
      .slice(1)
      .filter((l) => l.startsWith('/'))
      .map((l) => {
        const [path, state, sessions] = l.split(':');
        return [path!, { running: state === 'running', sessions: Number(sessions) }];
      }),
  );
}

/** Roundcube's seeded mail user (scripts/acceptance-setup.sh). */
export const ROUNDCUBE_USER = { username: 'seed', password: 'rc-pass-1' };

/** Runs IMAP commands as that user on the Dovecot a Roundcube test started (on the app's port + 1);
 * the server's whole answer. */
export async function roundcubeImap(appPort: number, commands: string[]): Promise<string> {
  const lines = [`a0 LOGIN ${ROUNDCUBE_USER.username} ${ROUNDCUBE_USER.password}`, ...commands.map((c, i) => `a${i + 1} ${c}`), 'z LOGOUT'];
  return new Promise((resolve, reject) => {
    let out = '';
    let next = 0;
    const sock = net.connect(appPort + 1, '127.0.0.1');
    sock.setEncoding('utf8');
    sock.on('data', (d: string) => {
      out += d;
      // One command at a time: the next once the previous one's tagged answer (or the greeting) came.
      const tag = next === 0 ? '* OK' : `${lines[next - 1]!.split(' ')[0]} `;
      if (next < lines.length && out.includes(tag)) sock.write(`${lines[next++]}\r\n`);
    });
    sock.on('end', () => resolve(out));
    sock.on('error', reject);
    setTimeout(() => {
      sock.destroy();
      reject(new Error(`IMAP timed out: ${out.slice(-300)}`));
    }, 10_000);
  });
}

/** The Roundcube database of the run on `appPort` (contacts, identities): the rows of `sql`. */
export function roundcubeRows(appPort: number, sql: string): Record<string, unknown>[] {
  const db = new Database(`/tmp/cs-acceptance-roundcube-${appPort}/roundcube.db`, { readonly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/** Monit's web user (scripts/acceptance-setup.sh). */
export const MONIT_USER = { username: 'seed', password: 'mn-pass-1' };
const monitAuth = { authorization: `Basic ${Buffer.from('seed:mn-pass-1').toString('base64')}` };

/** What Monit's XML status says of each service: name → monitored (and its status code). */
export async function monitServices(base: string): Promise<Record<string, { monitored: boolean; status: number }>> {
  const xml = await (await fetch(`${base}/_status?format=xml`, { headers: monitAuth })).text();
  const out: Record<string, { monitored: boolean; status: number }> = {};
  for (const m of xml.matchAll(/<service type="\d+"><name>([^<]+)<\/name>[\s\S]*?<status>(\d+)<\/status>[\s\S]*?<monitor>(\d)<\/monitor>/g))
    out[m[1]!] = { status: Number(m[2]), monitored: m[3] !== '0' };
  return out;
}

/** Asks Monit to act on a service (`monitor`, `unmonitor`) as its web form does. */
export async function monitAction(base: string, service: string, action: 'monitor' | 'unmonitor'): Promise<void> {
  const r = await fetch(`${base}/${service}`, {
    method: 'POST',
    headers: { ...monitAuth, cookie: 'securitytoken=cs-probe', 'content-type': 'application/x-www-form-urlencoded' },
    body: `securitytoken=cs-probe&action=${action}`,
    redirect: 'manual',
  });
  if (r.status >= 400) throw new Error(`monit ${action} ${service}: ${r.status}`);
  // (The daemon applies it on its next cycle.)
  for (let i = 0; i < 50 && (await monitServices(base))[service]?.monitored !== (action === 'monitor'); i++)
    await new Promise((res) => setTimeout(res, 200));
}

/** Shaarli's seeded owner (scripts/acceptance-setup.sh). */
export const SHAARLI_USER = { username: 'seed', password: 'sh-pass-1' };

/** Shaarli's REST API (`/api/v1/...`), signed as its clients are: a JWT (HS512) with the API secret. */
export async function shaarliApi(base: string, path: string): Promise<any> {
  const b64 = (v: string | Buffer) => Buffer.from(v).toString('base64url');
  const head = `${b64(JSON.stringify({ typ: 'JWT', alg: 'HS512' }))}.${b64(JSON.stringify({ iat: Math.floor(Date.now() / 1000) }))}`;
  const sig = crypto.createHmac('sha512', 'cs-acceptance-shaarli-api-secret').update(head).digest();
  const r = await fetch(`${base}/api/v1${path}`, { headers: { authorization: `Bearer ${head}.${b64(sig)}` } });
  if (!r.ok) throw new Error(`shaarli ${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** ZNC's seeded admin (scripts/acceptance-setup.sh). */
export const ZNC_USER = { username: 'seed', password: 'zn-pass-1' };

/** A page of ZNC's web admin as its seeded admin (it also takes HTTP Basic credentials): the HTML. */
export async function zncPage(base: string, path: string): Promise<string> {
  const r = await fetch(`${base}/mods/global/webadmin/${path}`, {
    headers: { authorization: `Basic ${Buffer.from('seed:zn-pass-1').toString('base64')}` },
  });
  return r.text();
}

/** Zabbix's seeded super admin (scripts/acceptance-setup.sh). */
export const ZABBIX_USER = { username: 'seed', password: 'zb-pass-1' };

/** Zabbix's own JSON-RPC API (`api_jsonrpc.php`), signed in as the seeded admin: the call's result. */
export async function zabbixApi(base: string, method: string, params: unknown): Promise<any> {
  const rpc = async (m: string, p: unknown, auth?: string) => {
    const r = await fetch(`${base}/api_jsonrpc.php`, {
      method: 'POST',
      headers: { 'content-type': 'application/json-rpc' },
      body: JSON.stringify({ jsonrpc: '2.0', method: m, params: p, id: 1, ...(auth ? { auth } : {}) }),
    });
    const out = (await r.json()) as { result?: unknown; error?: unknown };
    if (out.error) throw new Error(`zabbix ${m}: ${JSON.stringify(out.error)}`);
    return out.result as any;
  };
  return rpc(method, params, await rpc('user.login', { username: ZABBIX_USER.username, password: ZABBIX_USER.password }));
}

/** Vendure's seeded super admin (scripts/acceptance-setup.sh). */
export const VENDURE_USER = { username: 'seed', password: 'vd-pass-1' };

/** Vendure's Admin GraphQL API, signed in as the seeded admin (the login's token as a Bearer): `data`. */
export async function vendureApi(base: string, query: string, variables: Record<string, unknown> = {}): Promise<any> {
  const gql = async (q: string, vars: Record<string, unknown>, token?: string) => {
    const r = await fetch(`${base}/admin-api`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ query: q, variables: vars }),
    });
    const out = (await r.json()) as { data?: any; errors?: unknown };
    if (out.errors) throw new Error(`vendure: ${JSON.stringify(out.errors)}`);
    return { data: out.data, token: r.headers.get('vendure-auth-token') ?? undefined };
  };
  const { token } = await gql('mutation ($u: String!, $p: String!) { login(username: $u, password: $p) { ... on CurrentUser { id } } }', {
    u: VENDURE_USER.username,
    p: VENDURE_USER.password,
  });
  return (await gql(query, variables, token)).data;
}

/** PostfixAdmin's seeded super admin (scripts/acceptance-setup.sh). */
export const POSTFIXADMIN_USER = { username: 'seed@orchard.test', password: 'pf-pass-1!' };

/** Rows of the PostfixAdmin instance serving on `port` (its SQLite copy). */
export function postfixadminRows(port: number, sql: string): Record<string, unknown>[] {
  const db = new Database(`/tmp/cs-acceptance-postfixadmin-${port}/pfa.db`, { readonly: true });
  try {
    return db.prepare(sql).all() as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/** Nagios's Digest-auth user (scripts/acceptance-setup.sh). */
export const NAGIOS_USER = { username: 'nagiosadmin', password: 'ng-pass-1' };

/** The blocks of the status.dat of the Nagios serving on `port` (`servicestatus`, `servicecomment`…), each as its fields. */
export function nagiosStatus(port: number): { type: string; fields: Record<string, string> }[] {
  const text = fs.readFileSync(`/tmp/cs-acceptance-nagios-${port}/status.dat`, 'utf8');
  return [...text.matchAll(/^(\w+) \{\n([\s\S]*?)\n\s*\}/gm)].map((m) => ({
    type: m[1]!,
    fields: Object.fromEntries(
      m[2]!
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean)
        .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    ),
  }));
}

/** Waits (up to 10 s) until the status.dat of the Nagios on `port` has a block that `match` accepts; its fields. */
export async function nagiosAwait(port: number, type: string, match: (f: Record<string, string>) => boolean) {
  for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
    const hit = nagiosStatus(port).find((b) => b.type === type && match(b.fields));
    if (hit) return hit.fields;
  }
  return undefined;
}

/** tt-rss's seeded admin (scripts/acceptance-setup.sh). */
export const TTRSS_USER = { username: 'admin', password: 'tt-pass-1' };

/** Icinga Web 2's seeded administrator (scripts/acceptance-setup.sh). */
export const ICINGAWEB_USER = { username: 'admin', password: 'iw-pass-1' };

/** Rows of a database of the PostgreSQL on loopback (`db`), each as its columns' text. */
export function pgRows(db: string, sql: string): string[][] {
  return execFileSync('psql', ['-h', '127.0.0.1', '-U', 'postgres', '-d', db, '-tA', '-F', '\t', '-c', sql], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t'));
}

/** Rows of the tt-rss instance serving on `port` (its database, `ttrss_run_<port>`). */
export const ttrssRows = (port: number, sql: string) => pgRows(`ttrss_run_${port}`, sql);

/** DAViCal's admin (scripts/acceptance-setup.sh). */
export const DAVICAL_ADMIN = { username: 'admin', password: 'dv-admin-pass-1' };
/** Rows of the DAViCal instance serving `url` (its database, `davical_run_<port>`). */
export const davicalRows = (url: string, sql: string) => pgRows(`davical_run_${new URL(url).port}`, sql);

/** TiddlyWiki's user (HTTP Basic; scripts/acceptance-setup.sh). */
export const TIDDLYWIKI_USER = { username: 'seed', password: 'tw-pass-1' };

/** A tiddler as TiddlyWiki's server at `base` holds it (its JSON), or null when there is none. */
export async function tiddler(base: string, title: string): Promise<Record<string, any> | null> {
  const auth = `Basic ${Buffer.from(`${TIDDLYWIKI_USER.username}:${TIDDLYWIKI_USER.password}`).toString('base64')}`;
  const r = await fetch(`${base}/recipes/default/tiddlers/${encodeURIComponent(title)}`, { headers: { authorization: auth } });
  if (r.status === 404) return null;
  if (!r.ok) throw new Error(`TiddlyWiki ${title}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** Rows of Cacti's database for the instance on `base` (serve.sh: one MariaDB database per port). */
export function cactiQuery(base: string, sql: string): string[][] {
  const out = execFileSync('mysql', ['-N', '-B', `cacti_run_${new URL(base).port}`, '-e', sql], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t'));
}

export const NODERED_USER = { username: 'seed', password: 'nr-pass-1' };

/** Node-RED's admin API at `base` (`/flows`, `/inject/…`), signed in as its editor is: a bearer token. */
export async function noderedApi(base: string, path: string, init: RequestInit = {}): Promise<any> {
  const t = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_id: 'node-red-admin', grant_type: 'password', scope: '*', ...NODERED_USER }),
  });
  if (!t.ok) throw new Error(`Node-RED sign-in: ${t.status} ${await t.text()}`);
  const { access_token } = (await t.json()) as { access_token: string };
  const r = await fetch(`${base}${path}`, { ...init, headers: { ...init.headers, authorization: `Bearer ${access_token}` } });
  if (!r.ok) throw new Error(`Node-RED ${path}: ${r.status} ${await r.text()}`);
  return /json/.test(r.headers.get('content-type') ?? '') ? r.json() : r.text();
}

export const UNLEASH_USER = { username: 'seed', password: 'unleash-pass-1' };

/** The admin token the acceptance setup gives Unleash (scripts/acceptance-setup.sh). */
const UNLEASH_CHECKS_TOKEN = '*:*.cs-acceptance-checks-7d41e0';

/** Unleash's admin API at `base` (`/api/admin/…`) with an admin token. (Not a signed-in session:
 * Unleash keeps five sessions a user, and each sign-in of a recording or a run ends the oldest.) */
export async function unleashApi(base: string, path: string, init: RequestInit = {}): Promise<any> {
  const r = await fetch(`${base}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', ...init.headers, authorization: UNLEASH_CHECKS_TOKEN },
  });
  if (!r.ok) throw new Error(`Unleash ${path}: ${r.status} ${await r.text()}`);
  return /json/.test(r.headers.get('content-type') ?? '') ? r.json() : r.text();
}

/** n8n's seeded owner (scripts/acceptance-setup.sh). */
export const N8N_OWNER = { email: 'owner@example.com', password: 'N8n-owner-pass-1' };

/** n8n's REST API at `base` (`/rest/…`, its `data`), signed in as the owner for each call. (n8n
 * binds its session cookie to the `browser-id` header sent at sign-in: the same one goes on each call.) */
export async function n8nApi(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const headers = { 'content-type': 'application/json', 'browser-id': 'acceptance-checks' };
  const login = await fetch(`${base}/rest/login`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ emailOrLdapLoginId: N8N_OWNER.email, password: N8N_OWNER.password }),
  });
  if (!login.ok) throw new Error(`n8n sign-in: ${login.status} ${await login.text()}`);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  const r = await fetch(`${base}${path}`, { method, headers: { ...headers, cookie }, body: body ? JSON.stringify(body) : undefined });
  if (!r.ok) throw new Error(`n8n ${method} ${path}: ${r.status} ${await r.text()}`);
  return (await r.json()).data;
}

/** Rspamd's controller password (scripts/acceptance-setup.sh); it has no user name. */
export const RSPAMD_PASSWORD = 'Rspamd-admin-pass-1';

/** Rspamd's controller at `base` (its `Password` header): the parsed answer, or the text. */
export async function rspamdApi(
  base: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<any> {
  const r = await fetch(`${base}${path}`, { method, headers: { Password: RSPAMD_PASSWORD, ...headers }, body });
  const text = await r.text();
  if (!r.ok) throw new Error(`Rspamd ${method} ${path}: ${r.status} ${text}`);
  return /^[[{]/.test(text) ? JSON.parse(text) : text;
}

/** CUPS's admin (a system user in lpadmin, scripts/acceptance-setup.sh), for its Basic auth. */
export const CUPS_USER = { username: 'orchardprint', password: 'Print-admin-pass-1' };

/** What `cmd` (lpstat, lpadmin, cupsenable…) says or does at the cupsd serving `base`: over its
 * unix socket (serve.sh), where root is trusted without the Basic auth its port asks for. */
export function cupsSays(base: string, cmd: string, ...args: string[]): string {
  const sock = `/tmp/cs-cups-run-${new URL(base).port}/cups.sock`;
  return execFileSync(cmd, ['-h', sock, ...args], { encoding: 'utf8', timeout: 10_000 });
}

/** The ids of the jobs not yet completed or cancelled (`Orchard_Laser-3`), in order. */
export const cupsOpenJobs = (base: string) =>
  cupsSays(base, 'lpstat', '-W', 'not-completed', '-o')
    .split('\n')
    .map((l) => l.split(/\s+/)[0]!)
    .filter(Boolean);

/** Each printer's state as lpstat tells it: `idle`, `disabled` (paused); `accepting` or not. */
export function cupsPrinters(base: string): Record<string, { state: string; accepting: boolean; description: string; location: string }> {
  const out: Record<string, { state: string; accepting: boolean; description: string; location: string }> = {};
  let cur: string | null = null;
  for (const l of cupsSays(base, 'lpstat', '-l', '-p').split('\n')) {
    const m = /^printer (\S+) (?:is )?(idle|disabled|now printing)/.exec(l);
    if (m) out[(cur = m[1]!)] = { state: m[2]!, accepting: true, description: '', location: '' };
    const d = /^\s+Description: (.*)$/.exec(l);
    if (d && cur) out[cur]!.description = d[1]!.trim();
    const loc = /^\s+Location: (.*)$/.exec(l);
    if (loc && cur) out[cur]!.location = loc[1]!.trim();
  }
  for (const l of cupsSays(base, 'lpstat', '-a').split('\n')) {
    const m = /^(\S+) (not )?accepting/.exec(l);
    if (m && out[m[1]!]) out[m[1]!]!.accepting = !m[2];
  }
  return out;
}

/** A transaction of the hledger journal served at `base`, as its JSON API lists it. */
export interface HledgerTransaction {
  date: string;
  description: string;
  postings: { account: string; amount: string }[];
}

/** The journal's transactions (hledger-web's own `/transactions`), amounts as `42.50 EUR`. */
export async function hledgerTransactions(base: string): Promise<HledgerTransaction[]> {
  const r = await fetch(`${base}/transactions`);
  if (!r.ok) throw new Error(`hledger /transactions: ${r.status}`);
  type Amount = { acommodity: string; aquantity: { floatingPoint: number; decimalPlaces: number } };
  type Tx = { tdate: string; tdescription: string; tpostings: { paccount: string; pamount: Amount[] }[] };
  return ((await r.json()) as Tx[]).map((t) => ({
    date: t.tdate,
    description: t.tdescription,
    postings: t.tpostings.map((p) => ({
      account: p.paccount,
      amount: p.pamount.map((a) => `${a.aquantity.floatingPoint.toFixed(a.aquantity.decimalPlaces)} ${a.acommodity}`).join(', '),
    })),
  }));
}

export const HAPROXY_USER = { username: 'admin', password: 'hap-admin-pass-1' };
const haproxyAuth = `Basic ${Buffer.from(`${HAPROXY_USER.username}:${HAPROXY_USER.password}`).toString('base64')}`;

/** Each server's status by `backend/server`, from HAProxy's own CSV export (`/;csv`). */
export async function haproxyStates(base: string): Promise<Record<string, string>> {
  const r = await fetch(`${base}/;csv`, { headers: { authorization: haproxyAuth } });
  if (!r.ok) throw new Error(`haproxy /;csv: ${r.status}`);
  const [head, ...rows] = (await r.text())
    .trim()
    .split('\n')
    .map((l) => l.split(','));
  const status = head!.indexOf('status');
  return Object.fromEntries(rows.map((c) => [`${c[0]}/${c[1]}`, c[status]!]));
}

/** Sets servers of a backend (by its name or `#id`) to a state as the page's admin form does. */
export async function haproxyAction(base: string, backend: string, servers: string[], action: string): Promise<void> {
  const body = new URLSearchParams([...servers.map((s) => ['s', s]), ['action', action], ['b', backend]]);
  const r = await fetch(`${base}/`, { method: 'POST', body, redirect: 'manual', headers: { authorization: haproxyAuth } });
  if (r.status !== 303 || !/st=DONE/.test(r.headers.get('location') ?? ''))
    throw new Error(`haproxy ${action}: ${r.status} ${r.headers.get('location')}`);
}

export const SUPERVISOR_USER = { username: 'ops', password: 'sv-ops-pass-1' };
const supervisorAuth = `Basic ${Buffer.from(`${SUPERVISOR_USER.username}:${SUPERVISOR_USER.password}`).toString('base64')}`;

/** Each process's state by its full name (`group:name`, or `name` alone), from supervisord's XML-RPC. */
export async function supervisorStates(base: string): Promise<Record<string, string>> {
  const body = '<?xml version="1.0"?><methodCall><methodName>supervisor.getAllProcessInfo</methodName><params/></methodCall>';
  const r = await fetch(`${base}/RPC2`, { method: 'POST', body, headers: { authorization: supervisorAuth, 'content-type': 'text/xml' } });
  if (!r.ok) throw new Error(`supervisor RPC2: ${r.status}`);
  const states: Record<string, string> = {};
  for (const struct of (await r.text()).split('<struct>').slice(1)) {
    const field = (n: string) => new RegExp(`<name>${n}</name>\\s*<value><string>([^<]*)</string>`).exec(struct)?.[1];
    const [group, name, state] = [field('group'), field('name'), field('statename')];
    if (name && state) states[group && group !== name ? `${group}:${name}` : name] = state;
  }
  return states;
}

/** Acts on a process as its row's links do (`start`, `stop`, `restart`, `clearlog`); returns the page's message. */
export async function supervisorAction(base: string, process: string, action: string): Promise<string> {
  const url = `${base}/index.html?${new URLSearchParams({ processname: process, action })}`;
  const r = await fetch(url, { redirect: 'manual', headers: { authorization: supervisorAuth } });
  const to = r.headers.get('location');
  if (r.status !== 301 || !to) throw new Error(`supervisor ${action} ${process}: ${r.status}`);
  return new URL(to).searchParams.get('message') ?? '';
}

/** `git` over one of gitweb's (and cgit's) seeded bare repositories (`atlas`, `beacon`, `cobalt`); its output's lines. */
export function gitwebGit(repo: string, ...args: string[]): string[] {
  return gitLines(`/var/lib/cs-acceptance/gitweb/repos/${repo}.git`, args);
}

/** `git -C dir args…`'s output lines (any owner's repository: the seeds are root's). */
function gitLines(dir: string, args: string[]): string[] {
  const out = execFileSync('git', ['-c', 'safe.directory=*', '-C', dir, ...args], { encoding: 'utf8' });
  return out.split('\n').filter((l) => l !== '');
}

export const GITIT_USER = { username: 'seed', password: 'gt-seed-pass-1' };
const GITIT_SEED = '/var/lib/cs-acceptance/gitit/seed/wikidata';

/** git over the seeded wiki's repository (as the setup wrote it; a run's edits are in its own copy): its output's lines. */
export function gititGit(...args: string[]): string[] {
  return gitLines(GITIT_SEED, args);
}

/** A page's Markdown source as the wiki served at `base` has it now (gitit's own `/_showraw`); null when there is none. */
export async function gititRaw(base: string, page: string): Promise<string | null> {
  const r = await fetch(`${base}/_showraw/${encodeURIComponent(page)}`);
  return r.ok ? r.text() : null;
}

export const IKIWIKI_USER = { username: 'seed', password: 'ik-seed-pass-1' };

/** git over the seeded wiki's repository (as the setup wrote it; a run's edits are in its own copy): its output's lines. */
export function ikiwikiGit(...args: string[]): string[] {
  return gitLines('/var/lib/cs-acceptance/ikiwiki/seed/src', args);
}

/** A page's Markdown source in the copy of the wiki served at `base` (serve.sh's run directory); null when there is none. */
export function ikiwikiSource(base: string, page: string): string | null {
  const file = `/tmp/cs-ikiwiki-run-${new URL(base).port}/src/${page}.mdwn`;
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null;
}

/** LDAP Account Manager's sign-in: the admin's DN is what its user menu sends. */
export const LAM_USER = { username: 'cn=admin,dc=northwind,dc=test', password: 'lm-admin-pass-1' };

/** The entries under dc=northwind,dc=test matching `filter` in the directory of the LAM served at `base` (its slapd's socket). */
export const lamLdap = (base: string, filter: string, ...attrs: string[]) =>
  ldapSearch(`/tmp/cs-lam-run-${new URL(base).port}`, filter, ...attrs);

/** The same for the phpLDAPadmin served at `base`. */
export const plaLdap = (base: string, filter: string, ...attrs: string[]) =>
  ldapSearch(`/tmp/cs-pla-run-${new URL(base).port}`, filter, ...attrs);

/** The entries matching `filter` in the directory whose slapd listens on `run`/ldapi (scripts/acceptance-setup.sh). */
function ldapSearch(run: string, filter: string, ...attrs: string[]): Record<string, string[]>[] {
  const sock = encodeURIComponent(`${run}/ldapi`);
  const out = execFileSync(
    'ldapsearch',
    ['-x', '-o', 'ldif-wrap=no', '-H', `ldapi://${sock}`, '-b', 'dc=northwind,dc=test', '-LLL', filter, ...attrs],
    {
      encoding: 'utf8',
    },
  );
  return out
    .split(/\n\n+/)
    .filter((e) => e.trim())
    .map((e) => {
      const rec: Record<string, string[]> = {};
      for (const line of e.split('\n')) {
        const m = /^([\w-]+)(::?) (.*)$/.exec(line);
        if (m && m[1] !== 'dn') (rec[m[1]!] ??= []).push(m[2] === '::' ? Buffer.from(m[3]!, 'base64').toString('utf8') : m[3]!);
      }
      return rec;
    });
}
