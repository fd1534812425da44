#!/usr/bin/env bash
# Installs and seeds the real applications the synthesis acceptance suite runs against
# (test/acceptance/*.test.ts, ACCEPTANCE=1). Idempotent; needs root (apt), the npm registry
# (Directus), the local MariaDB on 127.0.0.1:3306 (root, no password) and PostgreSQL on 5432 (trust).
# The tests serve each app on 127.0.0.1 (`php -S`, or the app's own server; test/helpers/real-apps.ts).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
need=()
command -v php >/dev/null || need+=(php-cli php-xml php-mbstring php-intl php-gd php-mysql)
[ -d /usr/share/dokuwiki ] || need+=(dokuwiki)
[ -d /usr/share/phpmyadmin ] || need+=(phpmyadmin)
[ -d /usr/share/mediawiki ] || need+=(mediawiki php-sqlite3)
[ -d /usr/share/wordpress ] || need+=(wordpress)
[ -f /usr/share/adminer/adminer.php ] || need+=(adminer)
[ -d /usr/share/wordpress/wp-content/themes/twentytwentyone ] || need+=(wordpress-theme-twentytwentyone)
command -v fossil >/dev/null || need+=(fossil)
/usr/bin/python3 -c 'import django' 2>/dev/null || need+=(python3-django)
if [ ! -d /usr/share/redmine ]; then
  need+=(redmine redmine-sqlite)
  # Redmine's database through dbconfig-common, non-interactively: SQLite.
  debconf-set-selections <<'SEL'
redmine redmine/instances/default/dbconfig-install boolean true
redmine redmine/instances/default/database-type select sqlite3
SEL
fi
# (Request Tracker 5: its SQLite database is created and initialised by dbconfig-common.)
[ -d /usr/share/request-tracker5 ] || need+=(request-tracker5 rt5-db-sqlite)
command -v transmission-daemon >/dev/null || need+=(transmission-daemon transmission-cli)
[ -x /usr/bin/jupyter-notebook ] || need+=(jupyter-notebook)
command -v qbittorrent-nox >/dev/null || need+=(qbittorrent-nox)
command -v deluge-web >/dev/null || need+=(deluged deluge-web)
if [ ! -d /usr/share/cacti/site ]; then
  need+=(cacti)
  # (Cacti's database is ours, from its schema file: no dbconfig-common database.)
  echo 'cacti cacti/dbconfig-install boolean false' | debconf-set-selections
fi
[ -d /usr/lib/python3/dist-packages/radicale ] || need+=(radicale)
[ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || need+=(rabbitmq-server)
command -v syncthing >/dev/null || need+=(syncthing)
command -v prometheus >/dev/null || need+=(prometheus)
[ -d /usr/share/tomcat10-admin/manager ] || need+=(tomcat10 tomcat10-admin)
command -v monit >/dev/null || need+=(monit)
[ -d /usr/share/shaarli ] || need+=(shaarli)
command -v znc >/dev/null || need+=(znc)
[ -d /usr/share/zabbix ] || need+=(zabbix-frontend-php php-pgsql php-bcmath php-gd php-mbstring php-xml)
if [ ! -d /usr/share/postfixadmin ]; then
  need+=(postfixadmin php-imap php-sqlite3 sqlite3)
  # (PostfixAdmin's database is our own SQLite file per run: no dbconfig-common database.)
  echo 'postfixadmin postfixadmin/dbconfig-install boolean false' | debconf-set-selections
fi
# (Nagios: its CGIs served by Apache, with PHP for its frame pages; check_dummy for fixed states.)
[ -x /usr/sbin/nagios4 ] && [ -x /usr/lib/cgi-bin/nagios4/cmd.cgi ] || need+=(nagios4 nagios4-cgi monitoring-plugins-basic apache2 libapache2-mod-php)
[ -d /usr/share/icingaweb2 ] || need+=(icingaweb2 icingacli php-pgsql)
if [ ! -d /usr/share/tt-rss ]; then
  need+=(tt-rss php-pgsql)
  # (tt-rss's database is ours, from its schema file: no dbconfig-common database.)
  echo 'tt-rss tt-rss/dbconfig-install boolean false' | debconf-set-selections
fi
command -v cupsd >/dev/null || need+=(cups cups-client cups-bsd)
command -v hledger-web >/dev/null || need+=(hledger-web)
command -v haproxy >/dev/null || need+=(haproxy)
command -v supervisord >/dev/null || need+=(supervisor)
# (gitweb: git's own CGI, served by Apache's mod_cgi; Perl's CGI module.)
[ -f /usr/share/gitweb/gitweb.cgi ] || need+=(git)
[ -x /usr/sbin/apache2 ] || need+=(apache2)
perl -MCGI -e1 2>/dev/null || need+=(libcgi-pm-perl)
[ -x /usr/lib/cgit/cgit.cgi ] || need+=(cgit)
command -v gitit >/dev/null || need+=(gitit)
# (ikiwiki: its CGI's sign-in, sessions and forms; search through Xapian's omega.)
command -v ikiwiki >/dev/null && [ -x /usr/lib/cgi-bin/omega/omega ] && perl -MSearch::Xapian -MCGI::FormBuilder -MCGI::Session -MAuthen::Passphrase -e1 2>/dev/null ||
  need+=(ikiwiki libcgi-formbuilder-perl libcgi-session-perl libauthen-passphrase-perl libtimedate-perl libsearch-xapian-perl xapian-omega libhtml-tree-perl libsort-naturally-perl)
if [ ! -d /usr/share/roundcube ]; then
  need+=(roundcube-core roundcube-sqlite3 dovecot-imapd)
  # (Roundcube's database is our own SQLite file per run: no dbconfig-common database.)
  echo 'roundcube-core roundcube/dbconfig-install boolean false' | debconf-set-selections
fi
# (LDAP Account Manager: PHP over our own slapd; slapd's package configures no directory of its own.)
if [ ! -d /usr/share/ldap-account-manager ] || ! command -v slapd >/dev/null || ! php -m | grep -qx ldap; then
  echo 'slapd slapd/no_configuration boolean true' | debconf-set-selections
  need+=(slapd ldap-utils ldap-account-manager php8.2-ldap php8.2-gmp php8.2-zip php8.2-gd php8.2-curl php8.2-xml php8.2-mbstring)
fi
# (phpLDAPadmin: PHP over the same kind of directory, LAM's seed in a slapd of its own.)
[ -d /usr/share/phpldapadmin ] || need+=(phpldapadmin)
# (DAViCal: PHP over PostgreSQL, its schema and roles from its own create-database.sh.)
[ -d /usr/share/davical/htdocs ] || need+=(davical php-pgsql)
# (Rspamd: its controller serves the web UI; Redis keeps its history and Bayes statistics.)
command -v rspamd >/dev/null && command -v redis-server >/dev/null || need+=(rspamd redis-server)
if [ ${#need[@]} -gt 0 ]; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# One lifecycle for the apps whose database is a PostgreSQL template (Zabbix, Vendure, tt-rss, Icinga
# Web): their serve.sh ends with `exec pg-copy.sh SEED RUN_DB command…`. Written on every run.
mkdir -p /var/lib/cs-acceptance/lib
cat > /var/lib/cs-acceptance/lib/pg-copy.sh <<'SERVE'
#!/bin/sh
# pg-copy.sh SEED DB COMMAND...: runs COMMAND over DB, a fresh copy of the template database SEED,
# and drops DB when it is stopped (INT, TERM) or COMMAND ends.
set -e
SEED=$1
DB=$2
shift 2
PGOPTIONS='--client-min-messages=warning' psql -q -h 127.0.0.1 -U postgres -d postgres \
  -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB TEMPLATE $SEED"
"$@" &
CHILD=$!
# (`|| true`: under set -e a failing kill or wait would end the script before the drop.)
drop() { kill $CHILD 2>/dev/null || true; wait $CHILD 2>/dev/null || true; psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS $DB WITH (FORCE)" >/dev/null 2>&1 || true; }
trap 'drop; exit 0' INT TERM
wait $CHILD || true
drop
SERVE
chmod +x /var/lib/cs-acceptance/lib/pg-copy.sh
# One Apache for the CGI apps (gitweb, cgit, ikiwiki): their serve.sh ends with `exec cgi-httpd.sh PORT
# NAME` and gives their own lines on standard input. Written on every run.
cat > /var/lib/cs-acceptance/lib/cgi-httpd.sh <<'SERVE'
#!/bin/sh
# cgi-httpd.sh PORT NAME: Apache in the foreground on 127.0.0.1:PORT with mod_cgi, its own run
# directory /tmp/cs-acceptance-NAME-PORT, the app's own configuration lines read from stdin.
set -e
DIR=/tmp/cs-acceptance-$2-$1
rm -rf "$DIR" && mkdir -p "$DIR/run"
cat > "$DIR/httpd.conf" <<CONF
ServerRoot /etc/apache2
ServerName 127.0.0.1
Listen 127.0.0.1:$1
PidFile $DIR/run/httpd.pid
DefaultRuntimeDir $DIR/run
Mutex file:$DIR/run
User www-data
Group www-data
ErrorLog $DIR/error.log
LogLevel warn
LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule alias_module /usr/lib/apache2/modules/mod_alias.so
LoadModule cgi_module /usr/lib/apache2/modules/mod_cgi.so
LoadModule dir_module /usr/lib/apache2/modules/mod_dir.so
LoadModule env_module /usr/lib/apache2/modules/mod_env.so
LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
TypesConfig /etc/mime.types
CONF
cat >> "$DIR/httpd.conf"
chown -R www-data:www-data "$DIR"
# (Its own session: Apache's prefork MPM ends its whole process group when it stops.)
setsid /usr/sbin/apache2 -f "$DIR/httpd.conf" -DFOREGROUND &
WEB=$!
trap 'kill $WEB 2>/dev/null; wait $WEB 2>/dev/null; exit 0' INT TERM
wait $WEB
SERVE
chmod +x /var/lib/cs-acceptance/lib/cgi-httpd.sh

# ---- DokuWiki: an admin account, public read, seeded pages (a table, a definition list, many hits)
DW=/var/lib/dokuwiki/data/pages
HASH=$(php -r 'echo password_hash("dw-admin-pass-1", PASSWORD_BCRYPT);')
# (the Debian package may have created an admin with a random password: replace it)
sed -i '/^admin:/d' /etc/dokuwiki/users.auth.php
echo "admin:${HASH}:Wiki Admin:admin@example.test:admin,user" >> /etc/dokuwiki/users.auth.php
grep -q '^editor:' /etc/dokuwiki/users.auth.php || echo "editor:${HASH}:Ed Itor:editor@example.test:user" >> /etc/dokuwiki/users.auth.php
cat > /etc/dokuwiki/acl.auth.php <<'ACL'
*               @ALL          1
*               @user         8
ACL
grep -q "conf\['lang'\]" /etc/dokuwiki/local.php && sed -i "s/^#\$conf\['lang'\].*/\$conf['lang'] = 'en';/" /etc/dokuwiki/local.php
grep -q "conf\['userewrite'\]" /etc/dokuwiki/local.php || echo "\$conf['userewrite'] = 0;" >> /etc/dokuwiki/local.php
mkdir -p "$DW/fruit"
for f in apple:Red:Malus_domestica:1.20 banana:Yellow:Musa:0.35 cherry:Dark_red:Prunus_avium:4.10 damson:Purple:Prunus_insititia:3.05 elderberry:Black:Sambucus:6.50; do
  IFS=: read -r name color latin price <<<"$f"
  cat > "$DW/fruit/$name.txt" <<PAGE
====== ${name^} ======

A fruit page about the ${name}, used by the acceptance suite.

^ Property ^ Value ^
| Colour | ${color//_/ } |
| Latin name | ${latin//_/ } |
| Price per kg | ${price} |

Tags: orchard fruit
PAGE
done
cat > "$DW/fruit/catalogue.txt" <<'PAGE'
====== Fruit catalogue ======

^ Fruit ^ Colour ^ Price per kg ^ Stock ^
| [[fruit:apple|Apple]] | Red | 1.20 | 140 |
| [[fruit:banana|Banana]] | Yellow | 0.35 | 900 |
| [[fruit:cherry|Cherry]] | Dark red | 4.10 | 35 |
| [[fruit:damson|Damson]] | Purple | 3.05 | 12 |
| [[fruit:elderberry|Elderberry]] | Black | 6.50 | 7 |
PAGE
chown -R www-data:root /var/lib/dokuwiki/data
rm -rf /var/lib/dokuwiki/data/cache/* /var/lib/dokuwiki/data/index/* 2>/dev/null || true
# Build the search index (the wiki's search reads it).
for p in apple banana cherry damson elderberry catalogue; do php /usr/share/dokuwiki/bin/indexer.php -q >/dev/null 2>&1 || true; break; done

# ---- phpMyAdmin over the local MariaDB: a seeded database to browse and export
mysql -h127.0.0.1 -uroot <<'SQL'
CREATE DATABASE IF NOT EXISTS acme;
CREATE TABLE IF NOT EXISTS acme.products (id INT PRIMARY KEY, name VARCHAR(80), colour VARCHAR(40), price DECIMAL(8,2), stock INT);
INSERT IGNORE INTO acme.products VALUES (1,'Apple','Red',1.20,140),(2,'Banana','Yellow',0.35,900),(3,'Cherry','Dark red',4.10,35),(4,'Damson','Purple',3.05,12),(5,'Elderberry','Black',6.50,7);
CREATE USER IF NOT EXISTS 'pma'@'127.0.0.1' IDENTIFIED BY 'pma-pass-1';
GRANT ALL ON acme.* TO 'pma'@'127.0.0.1';
FLUSH PRIVILEGES;
SQL
PMA=/etc/phpmyadmin/config.inc.php
if ! grep -q 'acceptance-suite' "$PMA" 2>/dev/null; then
  cat >> "$PMA" <<'PHP'
/* acceptance-suite */
$cfg['blowfish_secret'] = 'acceptance-suite-0123456789abcdef0123';
$cfg['Servers'][1]['host'] = '127.0.0.1';
$cfg['Servers'][1]['auth_type'] = 'cookie';
$cfg['Servers'][1]['AllowNoPassword'] = false;
$cfg['VersionCheck'] = false;
$cfg['SendErrorReports'] = 'never';
PHP
fi

# ---- Adminer (one PHP file) over the local MariaDB: its own database `orchard`, a `trees` table of
# 60 rows (more than the 50 of a page), and a user with a password (Adminer refuses none).
mysql -h127.0.0.1 -uroot <<'SQL'
CREATE DATABASE IF NOT EXISTS orchard;
CREATE TABLE IF NOT EXISTS orchard.trees (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(80) NOT NULL,
  variety VARCHAR(40) NOT NULL, planted INT NOT NULL, row_no INT NOT NULL, notes VARCHAR(200) NOT NULL DEFAULT '');
CREATE USER IF NOT EXISTS 'gardener'@'127.0.0.1' IDENTIFIED BY 'ad-pass-1';
CREATE USER IF NOT EXISTS 'gardener'@'localhost' IDENTIFIED BY 'ad-pass-1';
GRANT ALL ON orchard.* TO 'gardener'@'127.0.0.1';
GRANT ALL ON orchard.* TO 'gardener'@'localhost';
FLUSH PRIVILEGES;
SQL
if [ "$(mysql -h127.0.0.1 -uroot -N -e 'select count(*) from orchard.trees')" = 0 ]; then
  for i in $(seq 1 60); do
    v=(Bramley Cox Gala Russet Morello Victoria); var=${v[$((i % 6))]}
    echo "INSERT INTO orchard.trees (name, variety, planted, row_no, notes) VALUES ('Tree $i', '$var', $((1990 + i % 30)), $(((i - 1) / 10 + 1)), 'Pruned in winter $((2000 + i % 20))');"
  done | mysql -h127.0.0.1 -uroot
fi

# ---- MediaWiki on SQLite: an admin and an editor, seeded fruit pages (an infobox-like table, a
# catalogue table, a category), so search, detail, table, category, history and edit flows have data.
MW=/var/lib/mediawiki
MWDB=/var/lib/mediawiki-acc
if [ ! -f /etc/mediawiki/LocalSettings.php ] || ! grep -q 'acceptance-suite' /etc/mediawiki/LocalSettings.php; then
  rm -rf "$MWDB" /etc/mediawiki/LocalSettings.php
  mkdir -p "$MWDB"
  php "$MW/maintenance/install.php" --dbtype sqlite --dbpath "$MWDB" --dbname acmewiki --server http://127.0.0.1:8933 \
    --scriptpath "" --lang en --pass mw-admin-pass-1 --confpath /etc/mediawiki "Acme Wiki" Admin >/dev/null
  cat >> /etc/mediawiki/LocalSettings.php <<'PHP'
/* acceptance-suite: served by `php -S` on whatever port a test picks */
$wgServer = 'http://' . ($_SERVER['HTTP_HOST'] ?? '127.0.0.1:8933');
$wgPasswordAttemptThrottle = [];
$wgRateLimits = [];
$wgJobRunRate = 0;
$wgEnableEmail = false;
PHP
  php "$MW/maintenance/createAndPromote.php" Editor mw-editor-pass-1 >/dev/null
fi
mwpage() { php "$MW/maintenance/edit.php" -q -u Admin -s "seed" "$1"; }
for f in Apple:Red:Malus_domestica:1.20 Banana:Yellow:Musa:0.35 Blackberry:Black:Rubus:5.20 Blueberry:Blue:Vaccinium:7.40 Cherry:Dark_red:Prunus_avium:4.10 Cranberry:Red:Vaccinium_oxycoccos:6.10 Damson:Purple:Prunus_insititia:3.05 Elderberry:Black:Sambucus:6.50; do
  IFS=: read -r name color latin price <<<"$f"
  mwpage "$name" <<PAGE
'''${name}''' is an orchard fruit described for the acceptance suite.

{| class="wikitable infobox"
! Property !! Value
|-
| Colour || ${color//_/ }
|-
| Latin name || ${latin//_/ }
|-
| Price per kg || ${price}
|}

[[Category:Fruit]]
PAGE
done
mwpage "Fruit catalogue" <<'PAGE'
The fruit we stock.

{| class="wikitable sortable"
! Fruit !! Colour !! Price per kg !! Stock
|-
| [[Apple]] || Red || 1.20 || 140
|-
| [[Banana]] || Yellow || 0.35 || 900
|-
| [[Cherry]] || Dark red || 4.10 || 35
|-
| [[Damson]] || Purple || 3.05 || 12
|-
| [[Elderberry]] || Black || 6.50 || 7
|}
PAGE
mwpage "Category:Fruit" <<<'Every fruit page.'
# a page with a history of several revisions (pagination of the history list)
for i in 1 2 3 4 5 6; do echo "Harvest log entry $i." | mwpage "Harvest log"; done
php "$MW/maintenance/runJobs.php" -q >/dev/null 2>&1 || true
php "$MW/maintenance/rebuildtextindex.php" -q >/dev/null 2>&1 || true

# ---- WordPress over the local MariaDB: an admin, an editor, seeded posts (search, the admin's
# posts table with paging) and the classic "Add New User" form (a nonce) for a create flow.
mysql -h127.0.0.1 -uroot <<'SQL'
CREATE DATABASE IF NOT EXISTS wordpress;
CREATE USER IF NOT EXISTS 'wp'@'127.0.0.1' IDENTIFIED BY 'wp-db-pass-1';
GRANT ALL ON wordpress.* TO 'wp'@'127.0.0.1';
FLUSH PRIVILEGES;
SQL
cat > /etc/wordpress/config-127.0.0.1.php <<'PHP'
<?php
/* acceptance-suite: served by `php -S` on whatever port a test picks */
define('DB_NAME', 'wordpress');
define('DB_USER', 'wp');
define('DB_PASSWORD', 'wp-db-pass-1');
define('DB_HOST', '127.0.0.1');
$acc_origin = 'http://' . ($_SERVER['HTTP_HOST'] ?? '127.0.0.1:8934');
define('WP_HOME', $acc_origin);
define('WP_SITEURL', $acc_origin);
define('WP_CONTENT_DIR', '/var/lib/wordpress/wp-content');
define('AUTOMATIC_UPDATER_DISABLED', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('DISABLE_WP_CRON', true);
PHP
cat > /tmp/wp-seed.php <<'PHP'
<?php
$_SERVER['HTTP_HOST'] = '127.0.0.1';
define('WP_INSTALLING', !file_exists('/var/lib/wordpress/.acc-installed'));
require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';
if (!is_blog_installed()) {
  wp_install('Acme Journal', 'admin', 'admin@example.test', true, '', 'wp-admin-pass-1');
  touch('/var/lib/wordpress/.acc-installed');
}
switch_theme('twentytwentyone');
update_option('posts_per_page', 5);
update_option('show_avatars', 0); // no gravatar.com requests (no outside hosts)
if (!get_user_by('login', 'editor')) wp_insert_user(['user_login' => 'editor', 'user_pass' => 'wp-editor-pass-1', 'user_email' => 'editor@example.test', 'role' => 'editor', 'display_name' => 'Ed Itor']);
$fruit = [['Apple', 'red'], ['Banana', 'yellow'], ['Cherry', 'dark red'], ['Damson', 'purple'], ['Elderberry', 'black'], ['Fig', 'green'], ['Grape', 'green'], ['Honeydew', 'pale green']];
foreach ($fruit as $i => [$name, $colour]) {
  if (get_page_by_title("$name harvest notes", OBJECT, 'post')) continue;
  wp_insert_post(['post_title' => "$name harvest notes", 'post_content' => "The $name crop from the orchard was $colour this year.", 'post_status' => 'publish', 'post_author' => 1, 'post_date' => sprintf('2026-10-%02d 09:00:00', $i + 1)]);
}
PHP
php /tmp/wp-seed.php
chown -R www-data /var/lib/wordpress/wp-content

# ---- Fossil (its own web server, not PHP): a repository with an admin, markdown wiki pages (a
# Property/Value table each), tickets to list, search and view; full-text search on.
FSL_DIR=/var/lib/cs-acceptance/fossil
if [ ! -f "$FSL_DIR/repo.fossil" ]; then
  mkdir -p "$FSL_DIR"
  export USER=admin
  fossil init "$FSL_DIR/repo.fossil" --admin-user admin >/dev/null
  fossil user password admin fsl-admin-pass-1 -R "$FSL_DIR/repo.fossil"
  fossil user default admin -R "$FSL_DIR/repo.fossil"
  fossil sql -R "$FSL_DIR/repo.fossil" "insert or replace into config(name,value,mtime) values('search-wiki','1',now()),('search-tkt','1',now())"
  for f in apple:Red:1.20 banana:Yellow:0.35 cherry:Dark_red:4.10 damson:Purple:3.05 elderberry:Black:6.50; do
    IFS=: read -r name color price <<<"$f"
    printf '# %s\n\nAn orchard fruit page about the %s.\n\n| Property | Value |\n|---|---|\n| Colour | %s |\n| Price per kg | %s |\n' \
      "${name^}" "$name" "${color//_/ }" "$price" > "$FSL_DIR/$name.md"
    fossil wiki create "${name^}" "$FSL_DIR/$name.md" --mimetype text/x-markdown -R "$FSL_DIR/repo.fossil" >/dev/null
  done
  for i in $(seq 1 12); do
    fossil ticket add title "Orchard task $i: prune row $i" status Open type Feature_Request severity Minor priority Low \
      comment "Prune the trees in row $i of the orchard" -R "$FSL_DIR/repo.fossil" -q >/dev/null
  done
  fossil ticket add title "Fix the fence" status Open type Code_Defect severity Critical priority High \
    comment "The fence by the gate is broken" -R "$FSL_DIR/repo.fossil" >/dev/null
fi

# ---- Redmine (Rails; the tests serve it with rackup/WEBrick): an admin, a public project of 31
# issues (two pages of the issue list), and the REST API on (the tests read the truth from it).
cat > /tmp/rm-seed.rb <<'RUBY'
u = User.find_by_login('admin')
u.password = 'rm-admin-pass-1'; u.password_confirmation = 'rm-admin-pass-1'; u.must_change_passwd = false; u.save!
Setting.default_language = 'en'
Setting.rest_api_enabled = '1'
p = Project.find_by_identifier('orchard') ||
  Project.create!(name: 'Orchard', identifier: 'orchard', is_public: true, enabled_module_names: ['issue_tracking'], tracker_ids: Tracker.pluck(:id))
# (Each issue unless it is there: a run cut short — SQLite busy while the package's own setup
# still held the database — is completed by the next, in the same order.)
seeded = p.issues.pluck(:subject)
(1..30).map { |i| ["Prune row #{i} of the orchard", "The trees in row #{i} need pruning."] }
  .push(['Fix the fence by the gate', 'The fence is broken.']).each do |subject, description|
  next if seeded.include?(subject)
  Issue.create!(project: p, tracker: Tracker.first, author: u, subject: subject, description: description,
                status: IssueStatus.first, priority: IssuePriority.first)
end
RUBY
(cd /usr/share/redmine && RAILS_ENV=production bin/rails runner /tmp/rm-seed.rb)

# ---- Django's admin (python3-django; the tests serve it with `manage.py runserver`): a small
# library project whose only UI is the admin Django ships (its markup, CSRF, search, filters,
# paging, change forms and actions are Django's own), a superuser and 25 seeded books.
DJ_DIR=/var/lib/cs-acceptance/django
if [ ! -f "$DJ_DIR/db.sqlite3" ]; then
  mkdir -p "$DJ_DIR/shelf/library"
  cat > "$DJ_DIR/manage.py" <<'PY'
import os, sys
os.environ.setdefault('DJANGO_SETTINGS_MODULE', 'shelf.settings')
from django.core.management import execute_from_command_line
execute_from_command_line(sys.argv)
PY
  touch "$DJ_DIR/shelf/__init__.py" "$DJ_DIR/shelf/library/__init__.py"
  cat > "$DJ_DIR/shelf/settings.py" <<'PY'
from pathlib import Path
BASE_DIR = Path(__file__).resolve().parent.parent
SECRET_KEY = 'acceptance-only-not-secret'
DEBUG = False
ALLOWED_HOSTS = ['127.0.0.1', 'localhost']
INSTALLED_APPS = ['django.contrib.admin', 'django.contrib.auth', 'django.contrib.contenttypes',
                  'django.contrib.sessions', 'django.contrib.messages', 'django.contrib.staticfiles', 'shelf.library']
MIDDLEWARE = ['django.middleware.security.SecurityMiddleware', 'django.contrib.sessions.middleware.SessionMiddleware',
              'django.middleware.common.CommonMiddleware', 'django.middleware.csrf.CsrfViewMiddleware',
              'django.contrib.auth.middleware.AuthenticationMiddleware', 'django.contrib.messages.middleware.MessageMiddleware',
              'django.middleware.clickjacking.XFrameOptionsMiddleware']
ROOT_URLCONF = 'shelf.urls'
TEMPLATES = [{'BACKEND': 'django.template.backends.django.DjangoTemplates', 'APP_DIRS': True, 'OPTIONS': {'context_processors': [
    'django.template.context_processors.request', 'django.contrib.auth.context_processors.auth',
    'django.contrib.messages.context_processors.messages']}}]
DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': BASE_DIR / 'db.sqlite3'}}
DEFAULT_AUTO_FIELD = 'django.db.models.AutoField'
STATIC_URL = '/static/'
USE_TZ = True
PY
  cat > "$DJ_DIR/shelf/urls.py" <<'PY'
from django.contrib import admin
from django.urls import path
urlpatterns = [path('admin/', admin.site.urls)]
PY
  cat > "$DJ_DIR/shelf/library/apps.py" <<'PY'
from django.apps import AppConfig
class LibraryConfig(AppConfig):
    name = 'shelf.library'
PY
  cat > "$DJ_DIR/shelf/library/models.py" <<'PY'
from django.db import models
class Author(models.Model):
    name = models.CharField(max_length=100)
    country = models.CharField(max_length=60)
    def __str__(self): return self.name
class Book(models.Model):
    title = models.CharField(max_length=200)
    author = models.ForeignKey(Author, on_delete=models.PROTECT)
    year = models.IntegerField()
    isbn = models.CharField('ISBN', max_length=20)
    in_stock = models.BooleanField(default=True)
    summary = models.TextField(blank=True)
    def __str__(self): return self.title
PY
  cat > "$DJ_DIR/shelf/library/admin.py" <<'PY'
from django.contrib import admin
from .models import Author, Book
@admin.register(Author)
class AuthorAdmin(admin.ModelAdmin):
    list_display = ('name', 'country')
    search_fields = ('name',)
@admin.register(Book)
class BookAdmin(admin.ModelAdmin):
    list_display = ('title', 'author', 'year', 'isbn', 'in_stock')
    list_filter = ('in_stock', 'author')
    search_fields = ('title', 'summary', 'author__name')
    list_per_page = 10
PY
  cd "$DJ_DIR"
  /usr/bin/python3 manage.py makemigrations library -v 0
  /usr/bin/python3 manage.py migrate -v 0
  cat > /tmp/dj-seed.py <<'PY'
from django.contrib.auth.models import User
from shelf.library.models import Author, Book
User.objects.filter(username='admin').exists() or User.objects.create_superuser('admin', 'admin@example.test', 'dj-admin-pass-1')
if not Book.objects.exists():
    authors = [Author.objects.create(name=n, country=c) for n, c in
               [('Ada Orchard', 'Ireland'), ('Basil Pruner', 'Wales'), ('Clara Graft', 'Norway'), ('Dmitri Sap', 'Estonia')]]
    for i in range(24):
        Book.objects.create(title=f'Orchard Notes volume {i + 1}', author=authors[i % 4], year=1990 + i,
                            isbn=f'978-0-{1000 + i}-{i % 10}', in_stock=i % 3 != 0, summary=f'Notes on pruning row {i + 1}.')
    Book.objects.create(title='The Broken Fence', author=authors[1], year=2021, isbn='978-1-2345-6', in_stock=True,
                        summary='A gate, a fence and what the storm left.')
PY
  /usr/bin/python3 manage.py shell -c "exec(open('/tmp/dj-seed.py').read())"
  cd - >/dev/null
fi

# ---- Directus (npm `directus` 10: a Vue single-page admin app over a JSON REST API, signed in by a
# session cookie; on the local PostgreSQL, database directus_acc): an admin and a `books`
# collection of 30 items (two pages of the list's 25). The tests serve it with `directus start` (HOST/PORT/PUBLIC_URL per test).
DX_DIR=/var/lib/cs-acceptance/directus
if [ ! -f "$DX_DIR/.seeded" ]; then
  mkdir -p "$DX_DIR/uploads" "$DX_DIR/extensions"
  cd "$DX_DIR"
  # (Install scripts off: they fetch prebuilt binaries from GitHub; argon2 and sharp ship theirs in
  # the npm packages, and PostgreSQL needs no native SQLite driver.)
  [ -x node_modules/.bin/directus ] || { npm init -y >/dev/null; npm install --no-audit --no-fund --ignore-scripts directus@10.10.0 >/dev/null; }
  # isolated-vm (Directus's flow sandbox, loaded at start) has no prebuilt binary in its package:
  # build it from source here (node-gyp against Node's own headers, about a minute).
  [ -f node_modules/isolated-vm/out/isolated_vm.node ] || npm rebuild isolated-vm >/dev/null
  psql -h 127.0.0.1 -U postgres -d test -tAc "select 1 from pg_database where datname='directus_acc'" | grep -q 1 ||
    psql -h 127.0.0.1 -U postgres -d test -c "create database directus_acc" >/dev/null
  cat > .env <<'ENV'
DB_CLIENT=pg
DB_HOST=127.0.0.1
DB_PORT=5432
DB_DATABASE=directus_acc
DB_USER=postgres
KEY=acceptance-key-0000000000000000
SECRET=acceptance-secret-0000000000000
ADMIN_EMAIL=admin@example.com
ADMIN_PASSWORD=dx-admin-pass-1
TELEMETRY=false
CACHE_ENABLED=false
RATE_LIMITER_ENABLED=false
ENV
  node_modules/.bin/directus bootstrap >/dev/null
  HOST=127.0.0.1 PORT=8950 PUBLIC_URL=http://127.0.0.1:8950 node_modules/.bin/directus start >/dev/null 2>&1 &
  DX_PID=$!
  for _ in $(seq 1 60); do curl -sf http://127.0.0.1:8950/server/ping >/dev/null && break; sleep 0.5; done
  node --input-type=module <<'JS'
const B = 'http://127.0.0.1:8950';
const j = async (method, path, body, token) => {
  const r = await fetch(B + path, { method, headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const t = await r.text();
  if (!r.ok) throw new Error(`${method} ${path} ${r.status} ${t.slice(0, 300)}`);
  return t ? JSON.parse(t) : null;
};
const tok = (await j('POST', '/auth/login', { email: 'admin@example.com', password: 'dx-admin-pass-1' })).data.access_token;
if (!(await j('GET', '/collections', null, tok)).data.some((c) => c.collection === 'books')) {
  await j('POST', '/collections', { collection: 'books', meta: { icon: 'book' }, schema: {}, fields: [
    { field: 'id', type: 'integer', meta: { hidden: true, interface: 'input', readonly: true }, schema: { is_primary_key: true, has_auto_increment: true } },
    { field: 'title', type: 'string', meta: { interface: 'input' }, schema: {} },
    { field: 'author', type: 'string', meta: { interface: 'input' }, schema: {} },
    { field: 'year', type: 'integer', meta: { interface: 'input' }, schema: {} },
    { field: 'in_stock', type: 'boolean', meta: { interface: 'boolean' }, schema: { default_value: true } },
    { field: 'summary', type: 'text', meta: { interface: 'input-multiline' }, schema: {} },
  ] }, tok);
  const authors = ['Ada Orchard', 'Basil Pruner', 'Clara Graft', 'Dmitri Sap'];
  const items = Array.from({ length: 29 }, (_, i) => ({ title: `Orchard Notes volume ${i + 1}`, author: authors[i % 4], year: 1990 + i, in_stock: i % 3 !== 0, summary: `Notes on pruning row ${i + 1}.` }));
  items.unshift({ title: 'The Broken Fence', author: 'Basil Pruner', year: 2021, in_stock: true, summary: 'A gate, a fence and what the storm left.' });
  await j('POST', '/items/books', items, tok);
}
JS
  kill "$DX_PID"
  touch .seeded
  cd - >/dev/null
fi

# ---- Request Tracker 5 (Perl/Mason; the tests serve it with its own rt-server, Standalone, on
# 127.0.0.1 and the port in RT_ACC_PORT): root's password, a queue `Orchard` of 35 tickets (more
# than one page of search results at 25 rows), a requestor, statuses and priorities.
cat > /etc/request-tracker5/RT_SiteConfig.d/70-acceptance.pm <<'PM'
# Connector Service acceptance: served at the root of 127.0.0.1 on the port the test picked.
Set($WebPath, '');
Set($WebDomain, '127.0.0.1');
Set($WebPort, $ENV{RT_ACC_PORT} || 8940);
Set($WebBaseURL, 'http://127.0.0.1:' . ($ENV{RT_ACC_PORT} || 8940));
Set($LogToSTDERR, 'warning');
Set($LogToSyslog, undef);
1;
PM
RT_DIR=/var/lib/cs-acceptance/rt
mkdir -p "$RT_DIR"
if [ ! -f "$RT_DIR/.seeded" ]; then
  perl - <<'PL'
use strict; use warnings;
use lib '/usr/share/request-tracker5/lib';
use RT; RT::LoadConfig(); RT::Init();
my $u = RT::User->new(RT->SystemUser); $u->Load('root');
my ($ok, $msg) = $u->SetPassword('rt-root-pass-1'); die "root password: $msg" unless $ok;
my $q = RT::Queue->new(RT->SystemUser); $q->Load('Orchard');
$q->Create(Name => 'Orchard', Description => 'Work in the orchard') unless $q->id;
my @t = (
  ['Fix the fence by the gate', 'The fence by the north gate is broken in two places', 'open', 40],
  ['Prune row 7 of the orchard', 'Winter pruning of the apple trees in row 7', 'new', 20],
  ['Order pear saplings', 'Twelve Conference pear saplings for the west slope', 'new', 10],
  ['Repair the irrigation pump', 'The pump stopped; the impeller looks broken', 'open', 90],
  ['Harvest the early plums', 'Pick the early plums before the rain', 'resolved', 50],
  map { ["Check tree $_ for canker", "Look at the bark of tree $_ for canker and pruning wounds", ($_ % 3 ? 'new' : 'open'), $_] } 1 .. 30,
);
for my $x (@t) {
  my ($id, undef, $m) = RT::Ticket->new(RT->SystemUser)->Create(Queue => 'Orchard', Subject => $x->[0], Status => $x->[2],
    Priority => $x->[3], Requestor => ['gardener@example.com'],
    MIMEObj => MIME::Entity->build(Type => 'text/plain', Charset => 'UTF-8', Data => [$x->[1]]));
  die "ticket: $m" unless $id;
}
PL
  touch "$RT_DIR/.seeded"
fi

# ---- Ghost 5 (npm `ghost`: a Node.js publishing platform on SQLite, with its default theme
# "Source" and an Ember admin app over a JSON API): an owner, four tags, 30 published posts (three
# pages of the theme's 12) and 12 members. Ghost's npm package is installed the way its own CLI
# does it: the package's tarball unpacked, then its dependencies (without devDependencies, one of
# which is fetched from GitHub; sqlite3 and re2 are built from source against Node's headers, about
# 9 minutes). The tests serve it with `node index.js`, `url` and `server__port` in the environment.
GH_DIR=/var/lib/cs-acceptance/ghost
if [ ! -f "$GH_DIR/.seeded" ]; then
  mkdir -p "$GH_DIR"
  cd "$GH_DIR"
  if [ ! -f app/node_modules/sqlite3/build/Release/node_sqlite3.node ]; then
    rm -rf app package ghost-*.tgz
    npm pack ghost@5.130.6 >/dev/null
    tar xzf ghost-5.130.6.tgz && mv package app && rm ghost-5.130.6.tgz
    node -e "const f='app/package.json',p=require('./'+f);delete p.devDependencies;require('fs').writeFileSync(f,JSON.stringify(p,null,2))"
    (cd app && npm install --omit=dev --legacy-peer-deps --no-audit --no-fund >/dev/null)
  fi
  rm -rf content ghost.db && cp -r app/content content
  cat > app/config.production.json <<'JSON'
{
  "url": "http://127.0.0.1:8941",
  "server": { "host": "127.0.0.1", "port": 8941 },
  "database": { "client": "sqlite3", "connection": { "filename": "/var/lib/cs-acceptance/ghost/ghost.db" }, "useNullAsDefault": true },
  "mail": { "transport": "Direct", "from": "owner@example.com" },
  "logging": { "transports": ["stdout"], "level": "warn" },
  "paths": { "contentPath": "/var/lib/cs-acceptance/ghost/content" },
  "security": { "staffDeviceVerification": false },
  "privacy": { "useUpdateCheck": false, "useGravatar": false, "useRpcPing": false, "useTinfoil": true },
  "portal": { "url": false },
  "sodoSearch": { "url": false },
  "comments": { "url": false }
}
JSON
  # (Ghost finds its root from the working directory; exec: $! is Ghost itself, ended below.)
  (cd app && NODE_ENV=production url=http://127.0.0.1:8952 server__port=8952 exec node index.js >/dev/null 2>&1) &
  GH_PID=$!
  for _ in $(seq 1 120); do curl -sf http://127.0.0.1:8952/ghost/api/admin/site/ >/dev/null && break; sleep 0.5; done
  node --input-type=module <<'JS'
const B = 'http://127.0.0.1:8952';
let cookie = '';
const j = async (method, path, body) => {
  for (let i = 0; ; i++) {
    const r = await fetch(`${B}/ghost/api/admin${path}`, { method, headers: { 'content-type': 'application/json', origin: B, cookie }, body: body ? JSON.stringify(body) : undefined });
    const sc = r.headers.get('set-cookie');
    if (sc) cookie = sc.split(';')[0];
    const t = await r.text();
    // (A session just made may not be readable yet.)
    if (r.status === 403 && i < 5) { await new Promise((ok) => setTimeout(ok, 300)); continue; }
    if (!r.ok) throw new Error(`${method} ${path} ${r.status} ${t.slice(0, 300)}`);
    try { return t ? JSON.parse(t) : null; } catch { return t; }
  }
};
await j('POST', '/authentication/setup/', { setup: [{ name: 'Ada Orchard', email: 'owner@example.com', password: 'gh-owner-pass-1', blogTitle: 'Orchard Journal' }] });
await j('POST', '/session/', { username: 'owner@example.com', password: 'gh-owner-pass-1' });
const topics = ['Pruning', 'Grafting', 'Cider', 'Pests'];
for (const name of topics) await j('POST', '/tags/', { tags: [{ name, description: `Notes on ${name.toLowerCase()}.` }] });
// (One day apart: the site's order and the API's agree, no two posts tie.)
for (let i = 1; i <= 30; i++) {
  const tag = topics[i % 4];
  await j('POST', '/posts/?source=html', { posts: [{
    title: i === 1 ? 'The Broken Fence' : `Orchard diary ${i}`,
    html: `<p>Day ${i} in the orchard: ${tag.toLowerCase()} along row ${i}.</p><p>The apple trees ${i % 2 ? 'bloomed' : 'rested'}.</p>`,
    status: 'published', published_at: new Date(Date.UTC(2026, 0, i, 12)).toISOString(),
    tags: [{ name: tag }], custom_excerpt: `Row ${i}, ${tag.toLowerCase()}.`,
  }] });
}
for (let i = 1; i <= 12; i++)
  await j('POST', '/members/', { members: [{ email: `member${i}@example.com`, name: `${['Basil', 'Clara', 'Dmitri'][i % 3]} Member ${i}`, note: `Joined for row ${i}` }] });
JS
  kill "$GH_PID"
  wait "$GH_PID" 2>/dev/null || true
  touch .seeded
  cd - >/dev/null
fi

# ---- Transmission 3 (transmission-daemon: a BitTorrent daemon with a jQuery web UI over one JSON-RPC
# endpoint, behind HTTP Basic auth, with its X-Transmission-Session-Id handed out by a 409). Four
# complete torrents made here from local files (no trackers) and one magnet link. No DHT, LPD, PEX,
# uTP or port mapping, torrents added paused, everything bound to loopback: nothing leaves the machine.
TR_DIR=/var/lib/cs-acceptance/transmission
if [ ! -f "$TR_DIR/.seeded" ]; then
  rm -rf "$TR_DIR" && mkdir -p "$TR_DIR/config" "$TR_DIR/downloads" "$TR_DIR/torrents"
  cat > "$TR_DIR/config/settings.json" <<JSON
{ "dht-enabled": false, "lpd-enabled": false, "pex-enabled": false, "utp-enabled": false,
  "port-forwarding-enabled": false, "blocklist-enabled": false,
  "bind-address-ipv4": "127.0.0.1", "bind-address-ipv6": "::1",
  "rpc-bind-address": "127.0.0.1", "rpc-whitelist-enabled": true, "rpc-whitelist": "127.0.0.1",
  "rpc-host-whitelist-enabled": false, "start-added-torrents": false,
  "download-dir": "$TR_DIR/downloads", "incomplete-dir-enabled": false, "message-level": 1 }
JSON
  for n in "Cider Recipes" "Grafting Handbook" "Orchard Survey 2026" "Pruning Guide"; do
    mkdir -p "$TR_DIR/downloads/$n"
    head -c 300000 /dev/urandom > "$TR_DIR/downloads/$n/data.bin"
    echo "$n: notes from the orchard" > "$TR_DIR/downloads/$n/README.txt"
    transmission-create -o "$TR_DIR/torrents/$n.torrent" -c "Made for the acceptance suite" "$TR_DIR/downloads/$n" >/dev/null
  done
  transmission-daemon -f -g "$TR_DIR/config" -p 8953 -P 8954 -t -u seed -v tr-seed-pass-1 &
  TR_PID=$!
  for _ in $(seq 1 40); do curl -s -o /dev/null http://127.0.0.1:8953/ && break; sleep 0.25; done
  trr() { transmission-remote 127.0.0.1:8953 -n seed:tr-seed-pass-1 "$@" >/dev/null; }
  for f in "$TR_DIR"/torrents/*.torrent; do trr -a "$f" -w "$TR_DIR/downloads"; done
  trr -a "magnet:?xt=urn:btih:3f2a1c9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39&dn=Pear%20Varieties"
  trr -t all -v
  sleep 2
  kill "$TR_PID"
  wait "$TR_PID" 2>/dev/null || true
  touch "$TR_DIR/.seeded"
fi

# ---- Jupyter Notebook 6 (Debian's jupyter-notebook: a file browser and text editor over its
# contents REST API, behind a password form with an _xsrf cookie echoed in a header): a few text
# files in folders. No token; the password's hash is in its config.
JN_DIR=/var/lib/cs-acceptance/jupyter
if [ ! -f "$JN_DIR/.seeded" ]; then
  rm -rf "$JN_DIR" && mkdir -p "$JN_DIR/root/notes" "$JN_DIR/root/cider" "$JN_DIR/root/pests/2026" "$JN_DIR/config" "$JN_DIR/data" "$JN_DIR/runtime"
  printf 'Orchard notes\nRow 1: apples pruned.\n' > "$JN_DIR/root/notes/orchard.txt"
  printf 'Grafting plan\nRow 2: pears onto quince.\n' > "$JN_DIR/root/notes/grafting.txt"
  printf 'Dry cider: 3 kg apples, 1 yeast.\n' > "$JN_DIR/root/cider/recipes.txt"
  printf 'Aphids on row 3.\n' > "$JN_DIR/root/pests/2026/june.txt"
  HASH=$(/usr/bin/python3 -c "from notebook.auth import passwd; print(passwd('jn-pass-1'))")
  printf '{ "NotebookApp": { "password": "%s", "token": "" } }\n' "$HASH" > "$JN_DIR/config/jupyter_notebook_config.json"
  touch "$JN_DIR/.seeded"
fi

# ---- qBittorrent 4.5 (qbittorrent-nox: a BitTorrent client whose MooTools web UI talks to a REST
# API of form posts and JSON answers, behind a login form that hands out an SID cookie; its torrent
# list is an incremental sync whose records are keyed by info-hash). Four complete torrents made here
# from local files (distinct file names each, no trackers) and one magnet link, in a category. DHT,
# LSD, PeX and port mapping off, bound to loopback, torrents added paused: nothing leaves the machine.
QB_DIR=/var/lib/cs-acceptance/qbittorrent
if [ ! -f "$QB_DIR/.seeded" ]; then
  rm -rf "$QB_DIR" && mkdir -p "$QB_DIR/profile/qBittorrent/config" "$QB_DIR/downloads" "$QB_DIR/torrents"
  QB_HASH=$(/usr/bin/python3 -c 'import base64,hashlib,os; s=os.urandom(16); k=hashlib.pbkdf2_hmac("sha512", b"qb-pass-1", s, 100000, 64); print("@ByteArray(%s:%s)" % (base64.b64encode(s).decode(), base64.b64encode(k).decode()))')
  cat > "$QB_DIR/profile/qBittorrent/config/qBittorrent.conf" <<CONF
[LegalNotice]
Accepted=true

[BitTorrent]
Session\DHTEnabled=false
Session\LSDEnabled=false
Session\PeXEnabled=false
Session\Interface=lo
Session\InterfaceName=lo
Session\InterfaceAddress=127.0.0.1
Session\DefaultSavePath=$QB_DIR/downloads
Session\AddTorrentPaused=true
Session\QueueingSystemEnabled=false

[Network]
PortForwardingEnabled=false

[Preferences]
Connection\UPnP=false
General\Locale=en
WebUI\Address=127.0.0.1
WebUI\Username=seed
WebUI\Password_PBKDF2="$QB_HASH"
WebUI\LocalHostAuth=true
WebUI\CSRFProtection=true
WebUI\HostHeaderValidation=false
CONF
  for n in "Apple Atlas:maps" "Beekeeping Basics:hives" "Orchard Survey 2026:rows" "Walnut Harvest:yields"; do
    name=${n%%:*} part=${n##*:}
    mkdir -p "$QB_DIR/downloads/$name"
    head -c 300000 /dev/urandom > "$QB_DIR/downloads/$name/$part.bin"
    echo "$name: notes from the orchard" > "$QB_DIR/downloads/$name/$part-README.txt"
    transmission-create -o "$QB_DIR/torrents/$name.torrent" -c "$name, made for the acceptance suite" "$QB_DIR/downloads/$name" >/dev/null
  done
  qbittorrent-nox --profile="$QB_DIR/profile" --webui-port=8957 --torrenting-port=8958 >/dev/null 2>&1 &
  QB_PID=$!
  for _ in $(seq 1 40); do curl -s -o /dev/null http://127.0.0.1:8957/ && break; sleep 0.25; done
  QB_JAR=$(mktemp)
  curl -sf -c "$QB_JAR" -d 'username=seed&password=qb-pass-1' http://127.0.0.1:8957/api/v2/auth/login >/dev/null
  qb() { curl -sf -b "$QB_JAR" "$@" >/dev/null; }
  qb -d 'category=orchard&savePath=' http://127.0.0.1:8957/api/v2/torrents/createCategory
  for f in "$QB_DIR"/torrents/*.torrent; do
    qb -F "torrents=@$f" -F "savepath=$QB_DIR/downloads" -F paused=true -F category=orchard http://127.0.0.1:8957/api/v2/torrents/add
  done
  qb --data-urlencode 'urls=magnet:?xt=urn:btih:3f2a1c9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39&dn=Pear%20Varieties' -d paused=true http://127.0.0.1:8957/api/v2/torrents/add
  sleep 1
  qb -d hashes=all http://127.0.0.1:8957/api/v2/torrents/recheck
  for _ in $(seq 1 40); do
    curl -s -b "$QB_JAR" http://127.0.0.1:8957/api/v2/torrents/info | grep -q '"checking' || break
    sleep 0.5
  done
  kill "$QB_PID"
  wait "$QB_PID" 2>/dev/null || true
  rm -f "$QB_JAR"
  touch "$QB_DIR/.seeded"
fi

# ---- Verdaccio 6 (a private npm registry, from the npm registry: a React web UI over a JSON API,
# signed in with a JSON login whose answer's token every later call sends as a Bearer header). A
# user and six packages published here (one scoped, one with two versions); no uplinks: it never
# fetches from the public registry. (Its node-fetch@cjs dependency is a dist-tag the registry
# mirror may lack: pinned by an override.)
VD_DIR=/var/lib/cs-acceptance/verdaccio
if [ ! -f "$VD_DIR/.seeded" ]; then
  rm -rf "$VD_DIR" && mkdir -p "$VD_DIR/storage" "$VD_DIR/pkgs"
  cat > "$VD_DIR/package.json" <<'JSON'
{ "name": "cs-acceptance-verdaccio", "private": true, "overrides": { "node-fetch": "2.7.0" } }
JSON
  (cd "$VD_DIR" && npm install --no-audit --no-fund --loglevel=error verdaccio@6.8.0 >/dev/null)
  cat > "$VD_DIR/config.yaml" <<YAML
storage: $VD_DIR/storage
auth:
  htpasswd:
    file: $VD_DIR/htpasswd
    max_users: 1
uplinks: {}
packages:
  '@*/*': { access: \$authenticated, publish: \$authenticated }
  '**': { access: \$authenticated, publish: \$authenticated }
web: { title: Orchard Registry, login: true }
listen: 127.0.0.1:8959
log: { type: stdout, format: pretty, level: warn }
YAML
  node "$VD_DIR/node_modules/verdaccio/bin/verdaccio" --config "$VD_DIR/config.yaml" >/dev/null 2>&1 &
  VD_PID=$!
  for _ in $(seq 1 60); do curl -s -o /dev/null http://127.0.0.1:8959/-/ping && break; sleep 0.25; done
  VD_TOKEN=$(curl -sf -X PUT -H 'content-type: application/json' -d '{"name":"seed","password":"vd-pass-1"}' \
    http://127.0.0.1:8959/-/user/org.couchdb.user:seed | node -e 'let s="";process.stdin.on("data",(d)=>(s+=d)).on("end",()=>console.log(JSON.parse(s).token))')
  echo "//127.0.0.1:8959/:_authToken=$VD_TOKEN" > "$VD_DIR/npmrc"
  vdpub() { # name version description keyword
    local d="$VD_DIR/pkgs/$(echo "$1" | tr '/@' '__')"
    mkdir -p "$d"
    printf '{ "name": "%s", "version": "%s", "description": "%s", "keywords": ["orchard", "%s"], "license": "MIT", "author": "Ada Orchard" }\n' "$1" "$2" "$3" "$4" > "$d/package.json"
    printf '# %s\n\n%s\n' "$1" "$3" > "$d/README.md"
    echo 'module.exports = {};' > "$d/index.js"
    (cd "$d" && npm publish --userconfig "$VD_DIR/npmrc" --registry http://127.0.0.1:8959/ --loglevel=error >/dev/null)
  }
  vdpub orchard-utils 1.0.0 "Small helpers for orchard records" records
  vdpub orchard-utils 1.1.0 "Small helpers for orchard records" records
  vdpub @orchard/pruning 2.0.0 "Pruning calendars for apple and pear trees" pruning
  vdpub apple-grader 0.3.1 "Grades apples by size and colour" apples
  vdpub cider-calc 1.2.0 "Sugar and yeast amounts for cider" cider
  vdpub pear-tools 0.9.0 "Ripeness tables for pears" pears
  kill "$VD_PID"
  wait "$VD_PID" 2>/dev/null || true
  rm -f "$VD_DIR/npmrc"
  touch "$VD_DIR/.seeded"
fi

# ---- Radicale 3 (a CalDAV/CardDAV server: its web UI signs in by passing the user and password to
# XHR, and lists and edits collections with WebDAV's PROPFIND and PROPPATCH and XML bodies and
# answers). A user (htpasswd, apr1) and three collections made here with MKCOL.
RD_DIR=/var/lib/cs-acceptance/radicale
if [ ! -f "$RD_DIR/.seeded" ]; then
  rm -rf "$RD_DIR" && mkdir -p "$RD_DIR/collections"
  printf 'seed:%s\n' "$(openssl passwd -apr1 rd-pass-1)" > "$RD_DIR/users"
  cat > "$RD_DIR/config" <<CONF
[server]
hosts = 127.0.0.1:8961
[auth]
type = htpasswd
htpasswd_filename = $RD_DIR/users
htpasswd_encryption = md5
[storage]
filesystem_folder = $RD_DIR/collections
[web]
type = internal
[logging]
level = warning
CONF
  /usr/bin/python3 -m radicale --config "$RD_DIR/config" >/dev/null 2>&1 &
  RD_PID=$!
  for _ in $(seq 1 40); do curl -s -o /dev/null http://127.0.0.1:8961/.web/ && break; sleep 0.25; done
  rdcol() { # id resourcetype displayname more-props
    curl -sf -u seed:rd-pass-1 -X MKCOL "http://127.0.0.1:8961/seed/$1/" -H 'content-type: application/xml' --data \
      "<?xml version=\"1.0\"?><mkcol xmlns=\"DAV:\" xmlns:C=\"urn:ietf:params:xml:ns:caldav\" xmlns:CR=\"urn:ietf:params:xml:ns:carddav\" xmlns:I=\"http://apple.com/ns/ical/\"><set><prop><resourcetype><collection/>$2</resourcetype><displayname>$3</displayname>$4</prop></set></mkcol>" >/dev/null
  }
  rdcol harvest '<C:calendar/>' 'Harvest Calendar' '<C:calendar-description>Picking days for apples and pears</C:calendar-description><I:calendar-color>#ff0000</I:calendar-color><C:supported-calendar-component-set><C:comp name="VEVENT"/></C:supported-calendar-component-set>'
  rdcol pruning '<C:calendar/>' 'Pruning Schedule' '<C:calendar-description>When to prune which row</C:calendar-description><I:calendar-color>#00aa00</I:calendar-color><C:supported-calendar-component-set><C:comp name="VTODO"/></C:supported-calendar-component-set>'
  rdcol growers '<CR:addressbook/>' 'Growers' '<CR:addressbook-description>Orchards we trade with</CR:addressbook-description>'
  kill "$RD_PID"
  wait "$RD_PID" 2>/dev/null || true
  touch "$RD_DIR/.seeded"
fi

# ---- RabbitMQ 3.10's management UI (a jQuery/Sammy single-page app: its login form stores
# base64(user:password) in a cookie that page JS turns into `Authorization: Basic` on every XHR;
# virtual hosts sit URL-encoded in API paths, `/` as `%2F`). Every start is a fresh node in its own
# directory under /tmp on the test's port (management on PORT, Erlang distribution on PORT+1, no
# AMQP listener, epmd not used), importing the users, virtual hosts and queues below; the test
# publishes the messages. (The machine's own RabbitMQ on 5672 is not touched.)
RQ_DIR=/var/lib/cs-acceptance/rabbitmq
if [ ! -f "$RQ_DIR/.seeded" ]; then
  rm -rf "$RQ_DIR" && mkdir -p "$RQ_DIR"
  # (a password hash as RabbitMQ stores it: base64(salt + sha256(salt + password)))
  RQ_HASH=$(/usr/bin/python3 -c 'import base64,hashlib,os; s=os.urandom(4); print(base64.b64encode(s+hashlib.sha256(s+b"rq-pass-1").digest()).decode())')
  cat > "$RQ_DIR/definitions.json" <<DEFS
{
  "users": [{"name": "seed", "password_hash": "$RQ_HASH", "hashing_algorithm": "rabbit_password_hashing_sha256", "tags": ["administrator"]}],
  "vhosts": [{"name": "/"}, {"name": "orchard"}],
  "permissions": [
    {"user": "seed", "vhost": "/", "configure": ".*", "write": ".*", "read": ".*"},
    {"user": "seed", "vhost": "orchard", "configure": ".*", "write": ".*", "read": ".*"}
  ],
  "queues": [
    {"name": "orders.new", "vhost": "/", "durable": true, "auto_delete": false, "arguments": {"x-max-length": 5000}},
    {"name": "orders.paid", "vhost": "/", "durable": true, "auto_delete": false, "arguments": {}},
    {"name": "invoices", "vhost": "/", "durable": true, "auto_delete": false, "arguments": {"x-message-ttl": 86400000}},
    {"name": "audit-log", "vhost": "/", "durable": false, "auto_delete": false, "arguments": {}},
    {"name": "pickers", "vhost": "orchard", "durable": true, "auto_delete": false, "arguments": {}},
    {"name": "harvest.events", "vhost": "orchard", "durable": true, "auto_delete": false, "arguments": {}}
  ],
  "exchanges": [], "bindings": [], "policies": [], "parameters": [], "global_parameters": [], "topic_permissions": []
}
DEFS
  cat > "$RQ_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: a fresh RabbitMQ node for one test run (see scripts/acceptance-setup.sh).
set -e
PORT=$1
DIR=/tmp/cs-acceptance-rabbitmq-$PORT
# (nodes of earlier runs left their directories behind)
find /tmp -maxdepth 1 -name 'cs-acceptance-rabbitmq-*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
rm -rf "$DIR" && mkdir -p "$DIR"
cat > "$DIR/rabbitmq.conf" <<CONF
management.tcp.ip = 127.0.0.1
management.tcp.port = $PORT
listeners.tcp = none
loopback_users = none
load_definitions = /var/lib/cs-acceptance/rabbitmq/definitions.json
log.console = false
log.file.level = warning
CONF
echo '[rabbitmq_management].' > "$DIR/enabled_plugins"
export HOME="$DIR" RABBITMQ_CONFIG_FILE="$DIR/rabbitmq" RABBITMQ_ENABLED_PLUGINS_FILE="$DIR/enabled_plugins" \
  RABBITMQ_MNESIA_BASE="$DIR/mnesia" RABBITMQ_LOG_BASE="$DIR/log" RABBITMQ_NODENAME="csacc$PORT@localhost" \
  RABBITMQ_DIST_PORT=$((PORT + 1)) RUNNING_UNDER_SYSTEMD=1 ERL_EPMD_ADDRESS=127.0.0.1 \
  RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-start_epmd false -erl_epmd_port $((PORT + 1))"
# (exec all the way down: the PID the test started is the Erlang VM it stops)
exec /usr/lib/rabbitmq/bin/rabbitmq-server
SERVE
  chmod +x "$RQ_DIR/serve.sh"
  touch "$RQ_DIR/.seeded"
fi

# ---- Syncthing 1.19 (an AngularJS GUI behind HTTP Basic auth; every API call carries an
# X-CSRF-Token-<id> header copied from a cookie; settings are saved by PUTting the whole
# configuration back). Global and local discovery, relays, NAT traversal, usage reporting and
# upgrades are off, and it listens on loopback only. Three folders; no remote device. Every start
# is a copy of the seeded home under /tmp (the tests change its configuration).
ST_DIR=/var/lib/cs-acceptance/syncthing
if [ ! -f "$ST_DIR/.seeded" ]; then
  rm -rf "$ST_DIR" && mkdir -p "$ST_DIR/home" "$ST_DIR/folders/photos" "$ST_DIR/folders/invoices" "$ST_DIR/folders/recipes"
  printf 'apple pie\n' > "$ST_DIR/folders/recipes/apple-pie.txt"
  printf 'pear tart\n' > "$ST_DIR/folders/recipes/pear-tart.txt"
  printf 'quince jelly\n' > "$ST_DIR/folders/recipes/quince-jelly.txt"
  printf 'invoice 88\n' > "$ST_DIR/folders/invoices/invoice-88.txt"
  syncthing generate --home="$ST_DIR/home" --gui-user=seed --gui-password=st-pass-1 --no-default-folder >/dev/null
  /usr/bin/python3 - "$ST_DIR/home/config.xml" <<'PY'
import sys, xml.etree.ElementTree as ET
path = sys.argv[1]
tree = ET.parse(path)
opts = tree.getroot().find('options')
def put(tag, value):
    for e in opts.findall(tag):
        opts.remove(e)
    ET.SubElement(opts, tag).text = value
for tag, value in [('globalAnnounceEnabled', 'false'), ('localAnnounceEnabled', 'false'), ('relaysEnabled', 'false'),
                   ('natEnabled', 'false'), ('startBrowser', 'false'), ('urAccepted', '-1'), ('autoUpgradeIntervalH', '0'),
                   ('crashReportingEnabled', 'false'), ('listenAddress', 'tcp://127.0.0.1:0')]:
    put(tag, value)
for e in opts.findall('globalAnnounceServer'):
    opts.remove(e)
tree.getroot().find('gui').find('apikey').text = 'cs-acceptance-syncthing-key'
tree.write(path)
PY
  STNOUPGRADE=1 syncthing serve --home="$ST_DIR/home" --gui-address=127.0.0.1:8965 --no-browser --no-restart >/dev/null 2>&1 &
  ST_PID=$!
  for _ in $(seq 1 60); do curl -sf -o /dev/null -H 'X-API-Key: cs-acceptance-syncthing-key' http://127.0.0.1:8965/rest/system/ping && break; sleep 0.25; done
  stfolder() { # id label
    curl -sf -o /dev/null -X POST -H 'X-API-Key: cs-acceptance-syncthing-key' -H 'content-type: application/json' \
      http://127.0.0.1:8965/rest/config/folders --data "{\"id\":\"$1\",\"label\":\"$2\",\"path\":\"$ST_DIR/folders/$1\",\"type\":\"sendreceive\"}"
  }
  stfolder photos 'Family Photos'
  stfolder invoices 'Invoices 2026'
  stfolder recipes 'Recipes'
  sleep 1
  kill "$ST_PID"
  wait "$ST_PID" 2>/dev/null || true
  cat > "$ST_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: Syncthing on a copy of the seeded home (see scripts/acceptance-setup.sh).
set -e
DIR=/tmp/cs-acceptance-syncthing-$1
find /tmp -maxdepth 1 -name 'cs-acceptance-syncthing-*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
rm -rf "$DIR" && cp -r /var/lib/cs-acceptance/syncthing/home "$DIR"
STNOUPGRADE=1 exec syncthing serve --home="$DIR" --gui-address="127.0.0.1:$1" --no-browser --no-restart
SERVE
  chmod +x "$ST_DIR/serve.sh"
  touch "$ST_DIR/.seeded"
fi

# ---- Prometheus 2.42 (Debian's build serves the classic jQuery UI: its console and graph send the
# expression with the browser's clock, `time=…`, `start=…&end=…`). Every start is a fresh server on
# the test's port that scrapes itself every second, storing under /tmp.
PM_DIR=/var/lib/cs-acceptance/prometheus
if [ ! -f "$PM_DIR/.seeded" ]; then
  rm -rf "$PM_DIR" && mkdir -p "$PM_DIR"
  cat > "$PM_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: a fresh Prometheus scraping itself (see scripts/acceptance-setup.sh).
set -e
DIR=/tmp/cs-acceptance-prometheus-$1
find /tmp -maxdepth 1 -name 'cs-acceptance-prometheus-*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
rm -rf "$DIR" && mkdir -p "$DIR"
cat > "$DIR/prometheus.yml" <<CONF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: orchard-metrics
    static_configs:
      - targets: ['127.0.0.1:$1']
CONF
exec prometheus --config.file="$DIR/prometheus.yml" --web.listen-address="127.0.0.1:$1" --storage.tsdb.path="$DIR/data" \
  --web.console.templates=/etc/prometheus/consoles --web.console.libraries=/etc/prometheus/console_libraries --log.level=warn
SERVE
  chmod +x "$PM_DIR/serve.sh"
  touch "$PM_DIR/.seeded"
fi

# ---- Tomcat 10.1's Manager and Host Manager (Java; HTTP Basic auth, and a CSRF nonce the server
# writes into every link and form action of every page it answers: a request that does not carry a
# nonce from one of the last pages it served is refused). Every start is a fresh CATALINA_BASE on the
# test's port, with three applications of our own (`/orchard`, `/pantry`, `/cellar`, each with a page
# that opens a session) and two directories the "deploy from the server" form can deploy.
TC_DIR=/var/lib/cs-acceptance/tomcat
if [ ! -f "$TC_DIR/.seeded" ]; then
  rm -rf "$TC_DIR" && mkdir -p "$TC_DIR/base/conf/Catalina/localhost" "$TC_DIR/base/webapps" "$TC_DIR/wars"
  for f in catalina.properties context.xml logging.properties web.xml; do cp /etc/tomcat10/$f "$TC_DIR/base/conf/"; done
  cp /etc/tomcat10/Catalina/localhost/manager.xml /etc/tomcat10/Catalina/localhost/host-manager.xml "$TC_DIR/base/conf/Catalina/localhost/"
  cat > "$TC_DIR/base/conf/server.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<Server port="-1" shutdown="SHUTDOWN">
  <GlobalNamingResources>
    <Resource name="UserDatabase" auth="Container" type="org.apache.catalina.UserDatabase"
              factory="org.apache.catalina.users.MemoryUserDatabaseFactory" pathname="conf/tomcat-users.xml" />
  </GlobalNamingResources>
  <Service name="Catalina">
    <Connector port="@PORT@" address="127.0.0.1" protocol="HTTP/1.1" connectionTimeout="20000" />
    <Engine name="Catalina" defaultHost="localhost">
      <Realm className="org.apache.catalina.realm.UserDatabaseRealm" resourceName="UserDatabase" />
      <Host name="localhost" appBase="webapps" unpackWARs="true" autoDeploy="false" />
    </Engine>
  </Service>
</Server>
XML
  # `seed` uses the HTML pages; `probe` is the tests' own client of the text interfaces.
  cat > "$TC_DIR/base/conf/tomcat-users.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<tomcat-users xmlns="http://tomcat.apache.org/xml" version="1.0">
  <user username="seed" password="tc-pass-1" roles="manager-gui,admin-gui" />
  <user username="probe" password="tc-probe-1" roles="manager-script,admin-script" />
</tomcat-users>
XML
  app() { # app DIR NAME TITLE
    mkdir -p "$1/WEB-INF"
    cat > "$1/WEB-INF/web.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<web-app xmlns="https://jakarta.ee/xml/ns/jakartaee" version="6.0"><display-name>$3</display-name></web-app>
XML
    echo "<html><body><h1>$3</h1></body></html>" > "$1/index.html"
    echo "<% session.setAttribute(\"basket\", \"$2\"); %>$3: a session" > "$1/visit.jsp"
  }
  app "$TC_DIR/base/webapps/ROOT" root 'Orchard Co-op'
  app "$TC_DIR/base/webapps/orchard" orchard 'Orchard Ledger'
  app "$TC_DIR/base/webapps/pantry" pantry 'Pantry Stock'
  app "$TC_DIR/base/webapps/cellar" cellar 'Cellar Book'
  app "$TC_DIR/wars/plum" plum 'Plum Harvest'
  app "$TC_DIR/wars/quince" quince 'Quince Press'
  cat > "$TC_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: a fresh Tomcat with the Manager on PORT (see scripts/acceptance-setup.sh).
set -e
DIR=/tmp/cs-acceptance-tomcat-$1
find /tmp -maxdepth 1 -name 'cs-acceptance-tomcat-*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
rm -rf "$DIR" && cp -r /var/lib/cs-acceptance/tomcat/base "$DIR" && mkdir -p "$DIR/logs" "$DIR/temp" "$DIR/work"
sed -i "s/@PORT@/$1/" "$DIR/conf/server.xml"
export CATALINA_HOME=/usr/share/tomcat10 CATALINA_BASE="$DIR" CATALINA_TMPDIR="$DIR/temp"
export JAVA_OPTS="-Xmx256m -Djava.awt.headless=true -XX:TieredStopAtLevel=1 -Djava.security.egd=file:/dev/./urandom"
exec /usr/share/tomcat10/bin/catalina.sh run
SERVE
  chmod +x "$TC_DIR/serve.sh"
  touch "$TC_DIR/.seeded"
fi

# ---- Roundcube 1.6 webmail over Dovecot IMAP (PHP; a jQuery app whose AJAX answers are JSON that
# carries JavaScript to run — the message list is `this.add_message_row(…)` calls — and a request
# token from the page on every call). Every start is a fresh Dovecot on PORT+1 (its own config, a
# passwd file with one user, Maildirs seeded here) and `php -S` on PORT with its own config dir and
# SQLite database (RCUBE_CONFIG_PATH, read after Debian's).
RC_DIR=/var/lib/cs-acceptance/roundcube
if [ ! -f "$RC_DIR/.seeded" ]; then
  rm -rf "$RC_DIR" && mkdir -p "$RC_DIR/config"
  id csmail >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin csmail
  cat > "$RC_DIR/config/config.inc.php" <<'PHP'
<?php
// The acceptance run's Roundcube: everything per run under RC_RUN_DIR (serve.sh).
$run = getenv('RC_RUN_DIR');
$config = [];
$config['db_dsnw'] = 'sqlite:///' . $run . '/roundcube.db?mode=0646';
$config['imap_host'] = '127.0.0.1:' . getenv('RC_IMAP_PORT');
$config['smtp_host'] = '';
$config['log_dir'] = $run . '/logs/';
$config['temp_dir'] = $run . '/temp/';
$config['des_key'] = 'cs-acceptance-rc-des-key-24';
$config['plugins'] = [];
$config['skin'] = 'elastic';
$config['enable_spellcheck'] = false;
$config['enable_installer'] = false;
$config['check_all_folders'] = false;
$config['mail_domain'] = 'orchard.test';
$config['product_name'] = 'Orchard Mail';
PHP
  python3 - "$RC_DIR" <<'PY'
import email.utils, os, sqlite3, sys, time
rc = sys.argv[1]
db = sqlite3.connect(f'{rc}/roundcube.db')
db.executescript(open('/usr/share/roundcube/SQL/sqlite.initial.sql').read())
db.commit()
maildir = f'{rc}/home/seed/Maildir'
mails = {
  '': [
    ('Ann Baker <ann@orchard.test>', 'Invoice 2041 for the apple crates', 'Forty crates of Bramley apples, due by the end of the month.'),
    ('Bob Miller <bob@orchard.test>', 'Pear harvest schedule', 'We start on the Conference pears on Monday, the Comice a week later.'),
    ('Carol Diaz <carol@orchard.test>', 'Invoice 2042 for pruning', 'Winter pruning of the north rows, eleven hours.'),
    ('Dan Evans <dan@orchard.test>', 'Cellar inventory, March', 'Two hundred bottles of perry and ninety of cider remain in the cellar.'),
    ('Eve Fischer <eve@orchard.test>', 'Quince jelly recipe', 'Simmer the quinces whole for an hour before straining overnight.'),
    ('Ann Baker <ann@orchard.test>', 'Invoice 2043 for the cider press', 'The new cider press, delivered and installed.'),
    ('Gus Hale <gus@orchard.test>', 'Orchard meeting notes', 'Agreed: a second beehive by the plum trees, and a new gate.'),
    ('Ivy Jones <ivy@orchard.test>', 'Plum tree delivery', 'Six Victoria plum trees arrive on Thursday morning.'),
  ],
  '.Receipts': [
    ('Shop <shop@orchard.test>', 'Receipt for ladders', 'Two orchard ladders, paid in full.'),
  ],
}
now = time.time() - 86400 * 3
n = 0
for folder, items in mails.items():
  for sub in ('cur', 'new', 'tmp'):
    os.makedirs(f'{maildir}/{folder}/{sub}', exist_ok=True)
  for sender, subject, body in items:
    n += 1
    when = now + n * 3600
    text = (f'From: {sender}\r\nTo: Seed Grower <seed@orchard.test>\r\nSubject: {subject}\r\n'
            f'Date: {email.utils.formatdate(when)}\r\nMessage-ID: <m{n}@orchard.test>\r\nMIME-Version: 1.0\r\n'
            f'Content-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n')
    name = f'{maildir}/{folder}/cur/{int(when)}.M{n}P1.orchard:2,S'
    open(name, 'w').write(text)
    os.utime(name, (when, when))
open(f'{maildir}/subscriptions', 'w').write('Receipts\n')
PY
  echo 'seed:{PLAIN}rc-pass-1' > "$RC_DIR/users"
  cat > "$RC_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: a fresh Dovecot (IMAP on PORT+1) and Roundcube on PORT (see scripts/acceptance-setup.sh).
set -e
DIR=/tmp/cs-acceptance-roundcube-$1
find /tmp -maxdepth 1 -name 'cs-acceptance-roundcube-*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
rm -rf "$DIR" && mkdir -p "$DIR/logs" "$DIR/temp" "$DIR/run" "$DIR/state"
cp -r /var/lib/cs-acceptance/roundcube/home /var/lib/cs-acceptance/roundcube/roundcube.db /var/lib/cs-acceptance/roundcube/users "$DIR/"
chown -R csmail:csmail "$DIR/home"
IMAP=$(($1 + 1))
cat > "$DIR/dovecot.conf" <<CONF
protocols = imap
listen = 127.0.0.1
base_dir = $DIR/run
state_dir = $DIR/state
log_path = $DIR/logs/dovecot.log
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 100
passdb {
  driver = passwd-file
  args = scheme=PLAIN $DIR/users
}
userdb {
  driver = static
  args = uid=csmail gid=csmail home=$DIR/home/%u
}
mail_location = maildir:~/Maildir
namespace inbox {
  inbox = yes
  separator = /
  mailbox Drafts {
    special_use = \Drafts
    auto = subscribe
  }
  mailbox Sent {
    special_use = \Sent
    auto = subscribe
  }
  mailbox Trash {
    special_use = \Trash
    auto = subscribe
  }
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $IMAP
  }
}
CONF
/usr/sbin/dovecot -F -c "$DIR/dovecot.conf" &
DOVECOT=$!
# (Debian's config dir first, ours last: what ours sets wins.)
export RCUBE_CONFIG_PATH=/var/lib/roundcube/config/:/var/lib/cs-acceptance/roundcube/config/ RC_RUN_DIR="$DIR" RC_IMAP_PORT=$IMAP
php -S "127.0.0.1:$1" -t /var/lib/roundcube/public_html &
PHP=$!
# (The test stops this script by its PID: both servers go with it. `wait` lets the trap run at once.)
trap 'kill $DOVECOT $PHP 2>/dev/null; exit 0' INT TERM
trap 'kill $DOVECOT $PHP 2>/dev/null' EXIT
wait $PHP
SERVE
  chmod +x "$RC_DIR/serve.sh"
  touch "$RC_DIR/.seeded"
fi

# ---- Monit 5.33 (a process and file monitor with its own small web server: HTTP Basic auth, HTML
# tables of services, and actions posted with a `securitytoken` that must equal its cookie). Every
# start is a fresh monitrc on the test's port watching files, directories and programs of its own.
MN_DIR=/var/lib/cs-acceptance/monit
if [ ! -f "$MN_DIR/.seeded" ]; then
  rm -rf "$MN_DIR" && mkdir -p "$MN_DIR"
  cat > "$MN_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: a fresh Monit with its web interface on PORT (see scripts/acceptance-setup.sh).
set -e
DIR=/tmp/cs-acceptance-monit-$1
find /tmp -maxdepth 1 -name 'cs-acceptance-monit-*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
rm -rf "$DIR" && mkdir -p "$DIR/pantry" "$DIR/cellar" "$DIR/events"
printf 'tree,variety,rows\n1,Bramley,4\n2,Conference,3\n' > "$DIR/orchard-ledger.csv"
printf 'jam\n' > "$DIR/pantry/shelf-1.txt"
cat > "$DIR/monitrc" <<CONF
set daemon 2
set logfile $DIR/monit.log
set pidfile $DIR/monit.pid
set idfile $DIR/monit.id
set statefile $DIR/monit.state
set eventqueue basedir $DIR/events slots 100
set httpd port $1 and use address 127.0.0.1
  allow seed:mn-pass-1
check file orchard-ledger with path $DIR/orchard-ledger.csv
  if size > 10 MB then alert
check directory pantry with path $DIR/pantry
  if changed timestamp then alert
check directory cellar with path $DIR/cellar
check program cellar-thermometer with path "/bin/echo 12 degrees"
  if status != 0 then alert
check system orchard-host
  if loadavg (1min) > 40 then alert
CONF
chmod 600 "$DIR/monitrc"
exec monit -I -c "$DIR/monitrc"
SERVE
  chmod +x "$MN_DIR/serve.sh"
  touch "$MN_DIR/.seeded"
fi

# ---- Shaarli 0.12 (a PHP bookmark manager without a database: its bookmarks in a data file, its
# forms carrying a one-time `token` from the page, a login form). Shaarli keeps its data in
# /var/lib/shaarli/data: every start restores the seeded copy there (one Shaarli at a time) and
# serves it with `php -S` through a router script (its pages are routes, not files). The seed: an
# owner, and bookmarks added through Shaarli's own REST API (a JWT signed with the API secret).
SH_DIR=/var/lib/cs-acceptance/shaarli
if [ ! -f "$SH_DIR/.seeded" ]; then
  rm -rf "$SH_DIR" && mkdir -p "$SH_DIR"
  cat > "$SH_DIR/router.php" <<'PHP'
<?php
// php -S router: files as files, everything else to Shaarli's front controller.
$path = parse_url($_SERVER['REQUEST_URI'], PHP_URL_PATH);
if ($path !== '/' && is_file('/usr/share/shaarli' . $path)) return false;
$_SERVER['SCRIPT_NAME'] = '/index.php';
chdir('/usr/share/shaarli');
require '/usr/share/shaarli/index.php';
PHP
  cat > "$SH_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: Shaarli on PORT with its seeded data restored (see scripts/acceptance-setup.sh).
set -e
rm -rf /var/lib/shaarli/data /var/cache/shaarli/tmp/* /var/cache/shaarli/pagecache/*
cp -r /var/lib/cs-acceptance/shaarli/data /var/lib/shaarli/data
chown -R www-data:www-data /var/lib/shaarli/data /var/cache/shaarli
exec php -S "127.0.0.1:$1" -t /usr/share/shaarli /var/lib/cs-acceptance/shaarli/router.php
SERVE
  chmod +x "$SH_DIR/serve.sh"
  rm -rf /var/lib/shaarli/data && mkdir -p /var/lib/shaarli/data
  python3 - <<'PY'
import hashlib, json
salt = 'cs-acceptance-shaarli-salt'
conf = {
  'credentials': {'login': 'seed', 'salt': salt, 'hash': hashlib.sha1(('sh-pass-1' + 'seed' + salt).encode()).hexdigest()},
  'general': {'title': 'Orchard Links', 'timezone': 'UTC', 'links_per_page': 20, 'enabled_plugins': [],
              'retrieve_description': False, 'enable_async_metadata': False},
  'api': {'enabled': True, 'secret': 'cs-acceptance-shaarli-api-secret'},
  'updates': {'check_updates': False},
  'thumbnails': {'mode': 'none'},
  'translation': {'language': 'en'},
  'security': {'ban_after': 100},
}
open('/var/lib/shaarli/data/config.json.php', 'w').write('<?php /*\n' + json.dumps(conf, indent=4) + '\n*/ ?>')
PY
  chown -R www-data:www-data /var/lib/shaarli/data /var/cache/shaarli
  php -S 127.0.0.1:8986 -t /usr/share/shaarli "$SH_DIR/router.php" >/dev/null 2>&1 &
  SH_PID=$!
  for i in $(seq 1 50); do curl -s -o /dev/null http://127.0.0.1:8986/ && break; sleep 0.2; done
  python3 - <<'PY'
import base64, hashlib, hmac, json, time, urllib.request
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b'=')
def jwt():
  head = b64(json.dumps({'typ': 'JWT', 'alg': 'HS512'}).encode()) + b'.' + b64(json.dumps({'iat': int(time.time())}).encode())
  return (head + b'.' + b64(hmac.new(b'cs-acceptance-shaarli-api-secret', head, hashlib.sha512).digest())).decode()
links = [
  ('https://orchard.example/pruning-apple-trees', 'Pruning apple trees in winter', 'Open the centre, keep the fruiting spurs.', ['apples', 'pruning']),
  ('https://orchard.example/pear-varieties', 'Pear varieties for a small orchard', 'Conference, Comice and Concorde compared.', ['pears']),
  ('https://orchard.example/cider-pressing', 'Pressing cider at home', 'Mill, press, ferment: a weekend guide.', ['apples', 'cider']),
  ('https://orchard.example/quince-jelly', 'Quince jelly', 'Simmer whole quinces, strain overnight.', ['quinces', 'recipes']),
  ('https://orchard.example/plum-pests', 'Plum moth and other pests', 'Pheromone traps from May.', ['plums', 'pests']),
  ('https://orchard.example/beekeeping', 'Bees in the orchard', 'Two hives per hectare for pollination.', ['bees']),
]
for url, title, description, tags in links:
  req = urllib.request.Request('http://127.0.0.1:8986/api/v1/links', method='POST',
    data=json.dumps({'url': url, 'title': title, 'description': description, 'tags': tags, 'private': False}).encode(),
    headers={'Authorization': 'Bearer ' + jwt(), 'Content-Type': 'application/json'})
  urllib.request.urlopen(req).read()
PY
  kill $SH_PID
  cp -r /var/lib/shaarli/data "$SH_DIR/data"
  touch "$SH_DIR/.seeded"
fi

# ---- ZNC 1.8 (an IRC bouncer whose webadmin module is a server-rendered admin UI: a form login,
# every form with a `_CSRF_Check` token, long settings forms posted whole). Every start is a fresh
# data dir on the test's port, with an admin, two networks that connect nowhere, no IRC listener.
ZN_DIR=/var/lib/cs-acceptance/znc
if [ ! -f "$ZN_DIR/.seeded" ]; then
  rm -rf "$ZN_DIR" && mkdir -p "$ZN_DIR"
  id csmail >/dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin csmail
  python3 - "$ZN_DIR" <<'PY'
import hashlib, sys
salt = 'csAcceptSalt0001'
conf = f'''Version = 1.8.2
<Listener web>
	Port = @PORT@
	Host = 127.0.0.1
	IPv4 = true
	IPv6 = false
	SSL = false
	AllowIRC = false
	AllowWeb = true
</Listener>
LoadModule = webadmin
<User seed>
	Admin = true
	Nick = seed
	AltNick = seed_
	Ident = seed
	RealName = Seed Grower
	<Pass password>
		Method = sha256
		Hash = {hashlib.sha256(('zn-pass-1' + salt).encode()).hexdigest()}
		Salt = {salt}
	</Pass>
	<Network orchard>
		Nick = orchard_seed
		IRCConnectEnabled = false
	</Network>
	<Network cellar>
		Nick = cellar_seed
		IRCConnectEnabled = false
	</Network>
</User>
'''
open(sys.argv[1] + '/znc.conf.in', 'w').write(conf)
PY
  cat > "$ZN_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: a fresh ZNC with its web admin on PORT (see scripts/acceptance-setup.sh).
set -e
DIR=/tmp/cs-acceptance-znc-$1
find /tmp -maxdepth 1 -name 'cs-acceptance-znc-*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
rm -rf "$DIR" && mkdir -p "$DIR/configs"
sed "s/@PORT@/$1/" /var/lib/cs-acceptance/znc/znc.conf.in > "$DIR/configs/znc.conf"
# (Not as root: ZNC would wait 30 s to be interrupted.)
chown -R csmail:csmail "$DIR"
exec runuser -u csmail -- znc --foreground --datadir "$DIR"
SERVE
  chmod +x "$ZN_DIR/serve.sh"
  touch "$ZN_DIR/.seeded"
fi

# ---- Zabbix 6.0's frontend (PHP over PostgreSQL: server-rendered lists with filter forms, every
# action carrying the session's `sid`, modal edit forms posted by AJAX that answer JSON, multiselect
# fields filled from a typeahead). The frontend needs no Zabbix server to manage hosts and users.
# Its schema comes from Debian's zabbix-server-pgsql package, unpacked only (the server is not
# installed). The seed database `zabbix_seed`: an admin `seed`, three host groups, six hosts with
# items and tags, a user group and a user, created through Zabbix's own JSON-RPC API. Every start
# makes a fresh database from it (`CREATE DATABASE … TEMPLATE`) named by the port (serve.sh).
ZB_DIR=/var/lib/cs-acceptance/zabbix
if [ ! -f "$ZB_DIR/.seeded" ]; then
  rm -rf "$ZB_DIR" && mkdir -p "$ZB_DIR/deb"
  # (Its pages are translated through gettext: without the en_US.UTF-8 locale every page says so.)
  grep -q '^en_US.UTF-8 UTF-8' /etc/locale.gen || { sed -i 's/^# *en_US.UTF-8 UTF-8/en_US.UTF-8 UTF-8/' /etc/locale.gen; locale-gen >/dev/null; }
  (cd "$ZB_DIR" && apt-get download -qq zabbix-server-pgsql && dpkg-deb -x zabbix-server-pgsql_*.deb deb && rm -f zabbix-server-pgsql_*.deb)
  mkdir -p /etc/zabbix
  cat > /etc/zabbix/zabbix.conf.php <<'PHP'
<?php
// The acceptance suite's Zabbix frontend (scripts/acceptance-setup.sh): its database named by the
// environment of the `php -S` serving it (serve.sh), one PostgreSQL database per instance.
$DB['TYPE'] = 'POSTGRESQL';
$DB['SERVER'] = '127.0.0.1';
$DB['PORT'] = '5432';
$DB['DATABASE'] = getenv('ZBX_DB') ?: 'zabbix_seed';
$DB['USER'] = 'postgres';
$DB['PASSWORD'] = '';
$DB['SCHEMA'] = '';
$DB['ENCRYPTION'] = false;
$DB['KEY_FILE'] = '';
$DB['CERT_FILE'] = '';
$DB['CA_FILE'] = '';
$DB['VERIFY_HOST'] = false;
$DB['CIPHER_LIST'] = '';
$DB['VAULT_URL'] = '';
$DB['VAULT_DB_PATH'] = '';
$DB['VAULT_TOKEN'] = '';
$DB['DOUBLE_IEEE754'] = true;
// (No Zabbix server: a port nothing listens on, on loopback.)
$ZBX_SERVER = '127.0.0.1';
$ZBX_SERVER_PORT = '1';
$ZBX_SERVER_NAME = 'Orchard monitoring';
$IMAGE_FORMAT_DEFAULT = IMAGE_FORMAT_PNG;
PHP
  SQL="$ZB_DIR/deb/usr/share/zabbix-server-pgsql"
  psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS zabbix_seed" -c "CREATE DATABASE zabbix_seed"
  (zcat "$SQL/schema.sql.gz"; zcat "$SQL/images.sql.gz"; zcat "$SQL/data.sql.gz") | psql -q -h 127.0.0.1 -U postgres -d zabbix_seed -v ON_ERROR_STOP=1 >/dev/null
  ZBX_DB=zabbix_seed php -S 127.0.0.1:8990 -t /usr/share/zabbix >/dev/null 2>&1 &
  ZB_PID=$!
  for i in $(seq 1 50); do curl -s -o /dev/null http://127.0.0.1:8990/ && break; sleep 0.2; done
  python3 - <<'PY'
import json, urllib.request
URL = 'http://127.0.0.1:8990/api_jsonrpc.php'
auth = None
def call(method, params):
  body = {'jsonrpc': '2.0', 'method': method, 'params': params, 'id': 1}
  if auth: body['auth'] = auth
  req = urllib.request.Request(URL, data=json.dumps(body).encode(), headers={'Content-Type': 'application/json-rpc'})
  out = json.loads(urllib.request.urlopen(req).read())
  if 'error' in out: raise SystemExit(f'{method}: {out["error"]}')
  return out['result']
auth = call('user.login', {'username': 'Admin', 'password': 'zabbix'})
groups = {}
for name in ['Orchard/Presses', 'Orchard/Cold stores', 'Orchard/Cellars']:
  groups[name] = call('hostgroup.create', {'name': name})['groupids'][0]
hosts = [
  ('pear-press-01', 'Pear press 1', 'Orchard/Presses', '10.20.0.11', {'site': 'north', 'fruit': 'pears'}),
  ('apple-press-02', 'Apple press 2', 'Orchard/Presses', '10.20.0.12', {'site': 'south', 'fruit': 'apples'}),
  ('cold-store-north', 'Cold store north', 'Orchard/Cold stores', '10.20.1.21', {'site': 'north'}),
  ('cold-store-south', 'Cold store south', 'Orchard/Cold stores', '10.20.1.22', {'site': 'south'}),
  ('cider-cellar', 'Cider cellar', 'Orchard/Cellars', '10.20.2.31', {'site': 'south', 'fruit': 'apples'}),
  ('quince-dryer', 'Quince dryer', 'Orchard/Presses', '10.20.0.13', {'site': 'east', 'fruit': 'quinces'}),
]
for host, visible, group, ip, tags in hosts:
  h = call('host.create', {'host': host, 'name': visible, 'groups': [{'groupid': groups[group]}],
    'interfaces': [{'type': 1, 'main': 1, 'useip': 1, 'ip': ip, 'dns': '', 'port': '10050'}],
    'tags': [{'tag': k, 'value': v} for k, v in tags.items()], 'description': f'{visible} in the {tags["site"]} yard.'})
  hid = h['hostids'][0]
  iface = call('hostinterface.get', {'hostids': hid})[0]['interfaceid']
  for key, name in [('agent.ping', 'Agent ping'), ('system.cpu.load', 'CPU load'), ('vfs.fs.size[/,pfree]', 'Free disk space on /')]:
    call('item.create', {'hostid': hid, 'interfaceid': iface, 'key_': key, 'name': name, 'type': 0, 'value_type': 3 if key == 'agent.ping' else 0, 'delay': '1m'})
ug = call('usergroup.create', {'name': 'Orchard operators', 'rights': [{'id': g, 'permission': 2} for g in groups.values()]})
call('user.create', {'username': 'pickers', 'name': 'Pat', 'surname': 'Picker', 'passwd': 'Orchard-pass-7', 'roleid': '1', 'usrgrps': [{'usrgrpid': ug['usrgrpids'][0]}]})
print('seeded', len(hosts), 'hosts')
PY
  kill $ZB_PID
  wait $ZB_PID 2>/dev/null || true
  HASH=$(php -r 'echo password_hash("zb-pass-1", PASSWORD_BCRYPT);')
  psql -q -h 127.0.0.1 -U postgres -d zabbix_seed -c "UPDATE users SET username = 'seed', passwd = '$HASH' WHERE username = 'Admin'"
  cat > "$ZB_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: Zabbix's frontend on PORT over a fresh copy of the seed database (see
# scripts/acceptance-setup.sh); the copy is dropped when the test stops this script.
exec /var/lib/cs-acceptance/lib/pg-copy.sh zabbix_seed "zabbix_run_$1" \
  env ZBX_DB="zabbix_run_$1" php -S "127.0.0.1:$1" -t /usr/share/zabbix
SERVE
  chmod +x "$ZB_DIR/serve.sh"
  touch "$ZB_DIR/.seeded"
fi

# ---- Vendure 3.7 (npm: a headless e-commerce framework on PostgreSQL; its Angular admin app talks
# only GraphQL — one endpoint, every read and write a named operation with JSON variables — and
# signs in with a `login` mutation whose answer's token (a header) every later call sends as a
# Bearer header). The seed database `vendure_seed`: a super admin `seed` and @vendure/create's own
# sample shop (54 products in 9 collections, with their images). Every start makes a fresh
# database from it named by the port (serve.sh); server and worker run in one process.
VN_DIR=/var/lib/cs-acceptance/vendure
if [ ! -f "$VN_DIR/.seeded" ]; then
  rm -rf "$VN_DIR" && mkdir -p "$VN_DIR"
  echo '{ "name": "cs-acceptance-vendure", "private": true }' > "$VN_DIR/package.json"
  (cd "$VN_DIR" && npm install --no-audit --no-fund --loglevel=error @vendure/core@3.7.3 @vendure/admin-ui-plugin@3.7.3 \
    @vendure/asset-server-plugin@3.7.3 @vendure/create@3.7.3 pg >/dev/null)
  cat > "$VN_DIR/vendure.js" <<'JS'
// The acceptance suite's Vendure: server and worker in one process on PORT, over the PostgreSQL
// database VENDURE_DB; `node vendure.js populate` seeds it from @vendure/create's sample data.
const path = require('node:path');
const { bootstrap, bootstrapWorker, DefaultSearchPlugin, dummyPaymentHandler, DefaultJobQueuePlugin } = require('@vendure/core');
const { AdminUiPlugin } = require('@vendure/admin-ui-plugin');
const { AssetServerPlugin } = require('@vendure/asset-server-plugin');
const port = Number(process.env.PORT || 3000);
const config = {
  apiOptions: { port, hostname: '127.0.0.1', adminApiPath: 'admin-api', shopApiPath: 'shop-api' },
  authOptions: {
    tokenMethod: ['bearer', 'cookie'],
    superadminCredentials: { identifier: 'seed', password: 'vd-pass-1' },
    cookieOptions: { secret: 'cs-acceptance-vendure-cookie' },
    requireVerification: false,
  },
  dbConnectionOptions: {
    type: 'postgres', host: '127.0.0.1', port: 5432, username: 'postgres', password: '',
    database: process.env.VENDURE_DB || 'vendure_seed', synchronize: true, logging: false,
  },
  paymentOptions: { paymentMethodHandlers: [dummyPaymentHandler] },
  plugins: [
    AssetServerPlugin.init({ route: 'assets', assetUploadDir: process.env.VENDURE_ASSETS || path.join(__dirname, 'assets') }),
    DefaultJobQueuePlugin.init({ useDatabaseForBuffer: true }),
    DefaultSearchPlugin.init({ bufferUpdates: false, indexStockStatus: true }),
    AdminUiPlugin.init({ route: 'admin', port: port + 1, adminUiConfig: { apiHost: 'auto', apiPort: 'auto' } }),
  ],
};
async function main() {
  if (process.argv[2] === 'populate') {
    const { populate } = require('@vendure/core/cli');
    const assets = path.join(path.dirname(require.resolve('@vendure/create/package.json')), 'assets');
    const initial = require(path.join(assets, 'initial-data.json'));
    const app = await populate(() => bootstrap({ ...config, importExportOptions: { importAssetsDir: path.join(assets, 'images') } }), initial, path.join(assets, 'products.csv'));
    const worker = await bootstrapWorker(config);
    await worker.startJobQueue();
    // (Rebuild the search index, then wait for the job queue to drain.)
    const { JobQueueService, SearchService, RequestContextService } = require('@vendure/core');
    const ctx = await app.get(RequestContextService).create({ apiType: 'admin' });
    await app.get(SearchService).reindex(ctx);
    await new Promise((r) => setTimeout(r, 15000));
    await worker.app.close();
    await app.close();
    process.exit(0);
  }
  await bootstrap(config);
  const worker = await bootstrapWorker(config);
  await worker.startJobQueue();
}
main().catch((e) => { console.error(e); process.exit(1); });
JS
  psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS vendure_seed" -c "CREATE DATABASE vendure_seed"
  (cd "$VN_DIR" && VENDURE_DISABLE_TELEMETRY=true node vendure.js populate >/dev/null)
  cat > "$VN_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: Vendure (admin app at /admin) on PORT over a fresh copy of the seed database (see
# scripts/acceptance-setup.sh); the copy is dropped when the test stops this script.
cd /var/lib/cs-acceptance/vendure
exec /var/lib/cs-acceptance/lib/pg-copy.sh vendure_seed "vendure_run_$1" \
  env VENDURE_DISABLE_TELEMETRY=true PORT="$1" VENDURE_DB="vendure_run_$1" node vendure.js
SERVE
  chmod +x "$VN_DIR/serve.sh"
  touch "$VN_DIR/.seeded"
fi

# ---- PostfixAdmin 3.3 (PHP: the admin UI of a Postfix/Dovecot mail server's virtual domains,
# mailboxes and aliases; server-rendered Bootstrap pages, every form and action link carrying a
# `token`, a mailbox's password typed twice). Its database is SQLite: the seed (made by its own
# upgrade.php and postfixadmin-cli: a super admin, two domains, five mailboxes, an alias) is copied
# per start (serve.sh). No DNS here: addresses are checked for their form only.
PF_DIR=/var/lib/cs-acceptance/postfixadmin
if [ ! -f "$PF_DIR/.seeded" ]; then
  rm -rf "$PF_DIR" && mkdir -p "$PF_DIR"
  cat > /etc/postfixadmin/config.local.php <<'PHP'
<?php
// The acceptance suite's PostfixAdmin (scripts/acceptance-setup.sh): SQLite, its file named by the
// environment of the `php -S` serving it (serve.sh), one copy of the seed per instance.
$CONF['configured'] = true;
$CONF['database_type'] = 'sqlite';
$CONF['database_name'] = getenv('PFA_DB') ?: '/var/lib/cs-acceptance/postfixadmin/seed.db';
$CONF['setup_password'] = 'not-used-setup-is-done-by-the-cli';
$CONF['encrypt'] = 'php_crypt:SHA512';
$CONF['default_language'] = 'en';
$CONF['admin_email'] = 'postmaster@orchard.test';
$CONF['show_footer_text'] = 'NO';
$CONF['fetchmail'] = 'NO';
$CONF['sendmail'] = 'NO';
$CONF['vacation'] = 'NO';
$CONF['quota'] = 'NO';
$CONF['domain_quota'] = 'NO';
$CONF['password_validation'] = ['/.{8}/' => 'password_too_short 8'];
// (No DNS here: addresses are checked for their form only; no SMTP for welcome mails.)
$CONF['emailcheck_resolve_domain'] = 'NO';
$CONF['smtp_server'] = '127.0.0.1';
$CONF['smtp_port'] = '1';
PHP
  export PFA_DB="$PF_DIR/seed.db"
  touch "$PFA_DB"
  (cd /usr/share/postfixadmin/public && php upgrade.php >/dev/null)
  PFC=/usr/share/postfixadmin/scripts/postfixadmin-cli
  $PFC admin add seed@orchard.test --password 'pf-pass-1!' --password2 'pf-pass-1!' --superadmin 1 --active 1 >/dev/null
  $PFC domain add orchard.test --description Orchard --aliases 50 --mailboxes 50 --active 1 >/dev/null
  $PFC domain add cellar.test --description Cellar --aliases 50 --mailboxes 50 --active 1 >/dev/null
  for m in "ann@orchard.test:Ann Baker" "bob@orchard.test:Bob Miller" "cora@orchard.test:Cora Reed" "dan@orchard.test:Dan Fields" "eve@cellar.test:Eve Stone"; do
    $PFC mailbox add "${m%%:*}" --password 'Mail-pass-12' --password2 'Mail-pass-12' --name "${m#*:}" --active 1 >/dev/null 2>&1
  done
  $PFC alias add sales@orchard.test --goto ann@orchard.test,bob@orchard.test --active 1 >/dev/null 2>&1
  unset PFA_DB
  [ "$(sqlite3 "$PF_DIR/seed.db" 'select count(*) from mailbox')" = 5 ]
  cat > "$PF_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: PostfixAdmin on PORT over a fresh copy of the seed database (see
# scripts/acceptance-setup.sh).
set -e
DIR=/tmp/cs-acceptance-postfixadmin-$1
find /tmp -maxdepth 1 -name 'cs-acceptance-postfixadmin-*' -mmin +60 -exec rm -rf {} + 2>/dev/null || true
rm -rf "$DIR" && mkdir -p "$DIR"
cp /var/lib/cs-acceptance/postfixadmin/seed.db "$DIR/pfa.db"
export PFA_DB="$DIR/pfa.db"
exec php -S "127.0.0.1:$1" -t /usr/share/postfixadmin/public
SERVE
  chmod +x "$PF_DIR/serve.sh"
  touch "$PF_DIR/.seeded"
fi

# ---- Nagios Core 4.4 (C CGIs behind Apache, as Debian ships them with authentication turned on the
# way its README.Debian points to: HTTP Digest auth (realm "Nagios4", Debian's choice) on every
# page and use_authentication=1, so the CGIs know the user; cmd.cgi takes a command only with the
# NagFormId CSRF cookie it handed out itself). Each start gets its own daemon and state under /tmp (serve.sh): hosts and
# services whose checks are check_dummy with fixed states (OK, WARNING, CRITICAL, UNKNOWN), so the
# status pages are the same every run; commands reach the daemon through its command pipe and
# show in its status.dat.
NG_DIR=/var/lib/cs-acceptance/nagios
if [ ! -f "$NG_DIR/.seeded" ]; then
  rm -rf "$NG_DIR" && mkdir -p "$NG_DIR"
  # Debian's realm for cmd.cgi is "Nagios4"; htdigest's file is "user:realm:md5(user:realm:password)".
  printf 'nagiosadmin:Nagios4:%s\n' "$(printf 'nagiosadmin:Nagios4:ng-pass-1' | md5sum | cut -d' ' -f1)" > "$NG_DIR/htdigest.users"
  # Debian's apache2.conf with Digest auth required everywhere (it ships it configured but granted to all).
  cat > "$NG_DIR/apache2.conf" <<'CONF'
ScriptAlias /cgi-bin/nagios4 /usr/lib/cgi-bin/nagios4
ScriptAlias /nagios4/cgi-bin /usr/lib/cgi-bin/nagios4
Alias /nagios4/stylesheets /etc/nagios4/stylesheets
Alias /nagios4 /usr/share/nagios4/htdocs
<DirectoryMatch (/usr/share/nagios4/htdocs|/usr/lib/cgi-bin/nagios4|/etc/nagios4/stylesheets)>
    Options FollowSymLinks
    DirectoryIndex index.php index.html
    AuthDigestDomain "/nagios4/" "/cgi-bin/nagios4/"
    AuthDigestProvider file
    AuthUserFile "/var/lib/cs-acceptance/nagios/htdigest.users"
    AuthName "Nagios4"
    AuthType Digest
    Require valid-user
</DirectoryMatch>
<Directory /usr/share/nagios4/htdocs>
    Options +ExecCGI
</Directory>
CONF
  cat > "$NG_DIR/objects.cfg" <<'CFG'
define command {
  command_name check_fixed
  command_line /usr/lib/nagios/plugins/check_dummy $ARG1$ "$ARG2$"
}
define command {
  command_name notify_none
  command_line /bin/true
}
define timeperiod {
  timeperiod_name always
  alias Always
  sunday 00:00-24:00
  monday 00:00-24:00
  tuesday 00:00-24:00
  wednesday 00:00-24:00
  thursday 00:00-24:00
  friday 00:00-24:00
  saturday 00:00-24:00
}
define contact {
  contact_name nagiosadmin
  alias Nagios Admin
  host_notifications_enabled 0
  service_notifications_enabled 0
  host_notification_period always
  service_notification_period always
  host_notification_options n
  service_notification_options n
  host_notification_commands notify_none
  service_notification_commands notify_none
}
define contactgroup {
  contactgroup_name admins
  alias Admins
  members nagiosadmin
}
define host {
  name fixed-host
  register 0
  check_command check_fixed!0!Packet loss = 0%
  max_check_attempts 1
  check_interval 60
  retry_interval 60
  check_period always
  notification_period always
  notification_interval 0
  contact_groups admins
}
define service {
  name fixed-service
  register 0
  max_check_attempts 1
  check_interval 60
  retry_interval 60
  check_period always
  notification_period always
  notification_interval 0
  contact_groups admins
}
define host {
  use fixed-host
  host_name orchard-web
  alias Orchard web front
  address 10.20.0.11
}
define host {
  use fixed-host
  host_name orchard-db
  alias Orchard database
  address 10.20.0.12
}
define host {
  use fixed-host
  host_name cellar-mail
  alias Cellar mail relay
  address 10.30.0.21
}
define host {
  use fixed-host
  host_name cellar-dns
  alias Cellar name server
  address 10.30.0.22
}
define hostgroup {
  hostgroup_name orchard
  alias Orchard servers
  members orchard-web,orchard-db
}
define hostgroup {
  hostgroup_name cellar
  alias Cellar servers
  members cellar-mail,cellar-dns
}
define service {
  use fixed-service
  host_name orchard-web
  service_description HTTP
  check_command check_fixed!0!HTTP/1.1 200 OK - 5120 bytes in 0.021 second response time
}
define service {
  use fixed-service
  host_name orchard-web
  service_description TLS certificate
  check_command check_fixed!1!Certificate 'orchard.test' expires in 12 day(s)
}
define service {
  use fixed-service
  host_name orchard-web
  service_description Disk /var
  check_command check_fixed!2!free space: /var 310 MB (3% inode=71%)
}
define service {
  use fixed-service
  host_name orchard-db
  service_description PostgreSQL
  check_command check_fixed!0!42 connections
}
define service {
  use fixed-service
  host_name orchard-db
  service_description Replication lag
  check_command check_fixed!2!replica is 340 seconds behind
}
define service {
  use fixed-service
  host_name orchard-db
  service_description Disk /
  check_command check_fixed!0!free space: / 18200 MB (61% inode=88%)
}
define service {
  use fixed-service
  host_name cellar-mail
  service_description SMTP
  check_command check_fixed!2!Socket timeout after 10 seconds
}
define service {
  use fixed-service
  host_name cellar-mail
  service_description IMAP
  check_command check_fixed!0!0.012 second response time on port 143
}
define service {
  use fixed-service
  host_name cellar-mail
  service_description Mail queue
  check_command check_fixed!1!212 messages in the queue
}
define service {
  use fixed-service
  host_name cellar-dns
  service_description DNS
  check_command check_fixed!0!0.004 seconds response time
}
define service {
  use fixed-service
  host_name cellar-dns
  service_description NTP
  check_command check_fixed!3!No response from NTP server
}
CFG
  cat > "$NG_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: Nagios (its daemon and state under /tmp/cs-acceptance-nagios-PORT) and Apache on
# PORT serving its CGIs and pages behind Digest auth (see scripts/acceptance-setup.sh).
set -e
DIR=/tmp/cs-acceptance-nagios-$1
find /tmp -maxdepth 1 -name 'cs-acceptance-nagios-*' -mmin +120 -exec rm -rf {} + 2>/dev/null || true
rm -rf "$DIR" && mkdir -p "$DIR/rw" "$DIR/spool" "$DIR/run"
cat > "$DIR/nagios.cfg" <<CFG
cfg_file=/var/lib/cs-acceptance/nagios/objects.cfg
log_file=$DIR/nagios.log
object_cache_file=$DIR/objects.cache
precached_object_file=$DIR/objects.precache
status_file=$DIR/status.dat
status_update_interval=1
nagios_user=www-data
nagios_group=www-data
check_external_commands=1
command_file=$DIR/rw/nagios.cmd
query_socket=$DIR/rw/nagios.qh
lock_file=$DIR/run/nagios.pid
temp_file=$DIR/nagios.tmp
temp_path=$DIR
check_result_path=$DIR/spool
check_result_reaper_frequency=1
retain_state_information=0
state_retention_file=$DIR/retention.dat
use_syslog=0
log_external_commands=1
log_initial_states=1
interval_length=1
service_inter_check_delay_method=n
host_inter_check_delay_method=n
enable_notifications=0
check_for_updates=0
illegal_macro_output_chars=\`~\$&|'"<>
date_format=iso8601
CFG
sed -e "s#^main_config_file=.*#main_config_file=$DIR/nagios.cfg#" -e 's#^use_authentication=.*#use_authentication=1#' /etc/nagios4/cgi.cfg > "$DIR/cgi.cfg"
cat > "$DIR/httpd.conf" <<CONF
ServerRoot /etc/apache2
ServerName 127.0.0.1
Listen 127.0.0.1:$1
PidFile $DIR/run/httpd.pid
DefaultRuntimeDir $DIR/run
Mutex file:$DIR/run
User www-data
Group www-data
ErrorLog $DIR/error.log
LogLevel warn
LoadModule mpm_prefork_module /usr/lib/apache2/modules/mod_mpm_prefork.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule authz_host_module /usr/lib/apache2/modules/mod_authz_host.so
LoadModule authz_user_module /usr/lib/apache2/modules/mod_authz_user.so
LoadModule authz_groupfile_module /usr/lib/apache2/modules/mod_authz_groupfile.so
LoadModule authn_core_module /usr/lib/apache2/modules/mod_authn_core.so
LoadModule authn_file_module /usr/lib/apache2/modules/mod_authn_file.so
LoadModule auth_digest_module /usr/lib/apache2/modules/mod_auth_digest.so
LoadModule alias_module /usr/lib/apache2/modules/mod_alias.so
LoadModule cgi_module /usr/lib/apache2/modules/mod_cgi.so
LoadModule dir_module /usr/lib/apache2/modules/mod_dir.so
LoadModule env_module /usr/lib/apache2/modules/mod_env.so
LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
LoadModule php_module /usr/lib/apache2/modules/libphp8.2.so
TypesConfig /etc/mime.types
AddType application/x-httpd-php .php
SetEnv NAGIOS_CGI_CONFIG $DIR/cgi.cfg
Include /var/lib/cs-acceptance/nagios/apache2.conf
CONF
chown -R www-data:www-data "$DIR"
/usr/sbin/nagios4 -d "$DIR/nagios.cfg"
# (The pages are served once every host and service has been checked: the same states each run.)
for _ in $(seq 1 100); do
  [ "$(grep -c 'has_been_checked=1' "$DIR/status.dat" 2>/dev/null || true)" -ge 15 ] && break
  sleep 0.2
done
# (Its own session: Apache's prefork MPM ends its whole process group when it stops, and that
# group would be the test runner's.)
setsid /usr/sbin/apache2 -f "$DIR/httpd.conf" -DFOREGROUND &
WEB=$!
stop() { kill $WEB 2>/dev/null || true; kill "$(cat "$DIR/run/nagios.pid" 2>/dev/null)" 2>/dev/null || true; wait $WEB 2>/dev/null || true; }
trap 'stop; exit 0' INT TERM
wait $WEB
SERVE
  chmod +x "$NG_DIR/serve.sh"
  touch "$NG_DIR/.seeded"
fi

# ---- Tiny Tiny RSS 21 (Debian's tt-rss: a PHP feed reader whose Dojo single-page UI calls
# backend.php with form-encoded `op`/`method` requests answered in JSON, each carrying the
# `csrf_token` the page wrote into an inline script). Over PostgreSQL: the seed (its schema, the
# admin's password, categories, feeds and articles inserted directly: no feed is fetched here) is
# the template of a fresh database per start (serve.sh), dropped when it stops. tt-rss refuses to
# run as root: serve.sh serves it as www-data.
TT_DIR=/var/lib/cs-acceptance/ttrss
if [ ! -f "$TT_DIR/.seeded" ]; then
  rm -rf "$TT_DIR" && mkdir -p "$TT_DIR"
  cat > /etc/tt-rss/database.php <<'PHP'
<?php
// The acceptance suite's tt-rss (scripts/acceptance-setup.sh): PostgreSQL on loopback, the
// database named by the environment of the `php -S` serving it (serve.sh).
$dbtype = 'pgsql';
$dbserver = '127.0.0.1';
$dbport = '5432';
$dbuser = 'postgres';
$dbpass = '';
$dbname = getenv('TTRSS_DB') ?: 'ttrss_seed';
$basepath = '';
PHP
  chmod 644 /etc/tt-rss/database.php
  sed -i -e "s#^\(\s*\)define('SELF_URL_PATH', .*#\1define('SELF_URL_PATH', getenv('TTRSS_SELF_URL') ?: 'http://127.0.0.1/');#" \
    -e "s#^\(\s*\)define('CHECK_FOR_UPDATES', .*#\1define('CHECK_FOR_UPDATES', false);#" /etc/tt-rss/config.php
  PGOPTIONS='--client-min-messages=warning' psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS ttrss_seed" -c "CREATE DATABASE ttrss_seed"
  PGOPTIONS='--client-min-messages=warning' psql -q -h 127.0.0.1 -U postgres -d ttrss_seed -v ON_ERROR_STOP=1 -f /usr/share/tt-rss/schema/ttrss_schema_pgsql.sql >/dev/null
  psql -q -h 127.0.0.1 -U postgres -d ttrss_seed -v ON_ERROR_STOP=1 >/dev/null <<SQL
UPDATE ttrss_users SET pwd_hash = 'SHA1:$(printf 'tt-pass-1' | sha1sum | cut -d' ' -f1)' WHERE login = 'admin';
INSERT INTO ttrss_feed_categories (id, owner_uid, title) VALUES (1, 1, 'Orchards'), (2, 1, 'Cellars');
SELECT setval('ttrss_feed_categories_id_seq', 2);
INSERT INTO ttrss_feeds (id, owner_uid, title, cat_id, feed_url, site_url, last_updated) VALUES
  (1, 1, 'Pear Growers Weekly', 1, 'http://feeds.orchard.test/pears.xml', 'http://pears.orchard.test/', NOW()),
  (2, 1, 'Apple Journal', 1, 'http://feeds.orchard.test/apples.xml', 'http://apples.orchard.test/', NOW()),
  (3, 1, 'Cider Makers Notes', 2, 'http://feeds.cellar.test/cider.xml', 'http://cider.cellar.test/', NOW());
SELECT setval('ttrss_feeds_id_seq', 3);
INSERT INTO ttrss_entries (id, title, guid, link, updated, content, content_hash, date_entered, date_updated, author) VALUES
  (1, 'Pruning pears in late winter', 'pears-1', 'http://pears.orchard.test/pruning', NOW() - interval '9 days', '<p>Cut back the leaders of young pear trees before the buds break.</p>', 'h1', NOW() - interval '9 days', NOW(), 'Ann Baker'),
  (2, 'Fire blight on Conference pears', 'pears-2', 'http://pears.orchard.test/fire-blight', NOW() - interval '8 days', '<p>Blackened shoots mean fire blight: cut well below the damage.</p>', 'h2', NOW() - interval '8 days', NOW(), 'Bob Miller'),
  (3, 'Harvesting Williams pears', 'pears-3', 'http://pears.orchard.test/harvest', NOW() - interval '7 days', '<p>Pick pears firm and let them ripen indoors.</p>', 'h3', NOW() - interval '7 days', NOW(), 'Ann Baker'),
  (4, 'Apple scab in a wet spring', 'apples-1', 'http://apples.orchard.test/scab', NOW() - interval '6 days', '<p>Scab spreads in rain; rake up fallen leaves.</p>', 'h4', NOW() - interval '6 days', NOW(), 'Cora Reed'),
  (5, 'Thinning apples for size', 'apples-2', 'http://apples.orchard.test/thinning', NOW() - interval '5 days', '<p>Leave one apple per cluster after the June drop.</p>', 'h5', NOW() - interval '5 days', NOW(), 'Dan Fields'),
  (6, 'Storing apples through winter', 'apples-3', 'http://apples.orchard.test/storing', NOW() - interval '4 days', '<p>Wrap each apple in paper and keep it cool.</p>', 'h6', NOW() - interval '4 days', NOW(), 'Cora Reed'),
  (7, 'Grafting heritage apple trees', 'apples-4', 'http://apples.orchard.test/grafting', NOW() - interval '3 days', '<p>Whip and tongue grafts take best in early spring.</p>', 'h7', NOW() - interval '3 days', NOW(), 'Eve Stone'),
  (8, 'Pressing perry from pears', 'cider-1', 'http://cider.cellar.test/perry', NOW() - interval '2 days', '<p>Perry pears are tannic: blend the juice for balance.</p>', 'h8', NOW() - interval '2 days', NOW(), 'Eve Stone'),
  (9, 'Wild yeast in farmhouse cider', 'cider-2', 'http://cider.cellar.test/wild-yeast', NOW() - interval '1 day', '<p>A slow ferment with wild yeast keeps the apple aroma.</p>', 'h9', NOW() - interval '1 day', NOW(), 'Bob Miller'),
  (10, 'Racking cider off the lees', 'cider-3', 'http://cider.cellar.test/racking', NOW() - interval '2 hours', '<p>Rack when the gravity stops falling.</p>', 'h10', NOW() - interval '2 hours', NOW(), 'Dan Fields');
SELECT setval('ttrss_entries_id_seq', 10);
UPDATE ttrss_entries SET tsvector_combined = to_tsvector('simple', title || ' ' || regexp_replace(content, '<[^>]*>', ' ', 'g'));
INSERT INTO ttrss_user_entries (ref_id, uuid, feed_id, owner_uid, tag_cache, label_cache, unread)
  SELECT id, '', CASE WHEN guid LIKE 'pears-%' THEN 1 WHEN guid LIKE 'apples-%' THEN 2 ELSE 3 END, 1, '', '', true FROM ttrss_entries;
SQL
  [ "$(psql -tA -h 127.0.0.1 -U postgres -d ttrss_seed -c 'select count(*) from ttrss_user_entries')" = 10 ]
  cat > "$TT_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: tt-rss on PORT (as www-data: it refuses root) over a fresh copy of the seed
# database (see scripts/acceptance-setup.sh); the copy is dropped when the test stops this script.
exec /var/lib/cs-acceptance/lib/pg-copy.sh ttrss_seed "ttrss_run_$1" \
  env TTRSS_DB="ttrss_run_$1" TTRSS_SELF_URL="http://127.0.0.1:$1/" \
  setpriv --reuid=www-data --regid=www-data --init-groups php -S "127.0.0.1:$1" -t /usr/share/tt-rss/www
SERVE
  chmod +x "$TT_DIR/serve.sh"
  touch "$TT_DIR/.seeded"
fi

# ---- Icinga Web 2.11 (Debian's icingaweb2: a PHP admin UI whose own JavaScript loads every link
# and form answer into a column by XHR — `X-Icinga-Container`, `X-Icinga-WindowId` — and answers a
# saved form with an `X-Icinga-Redirect` header; every form carries a CSRF token and a form UID).
# Its users and groups in PostgreSQL (`backend = db`), its roles in INI files. The seed database is
# the template of a fresh one per start, with a config directory of its own (serve.sh).
IW_DIR=/var/lib/cs-acceptance/icingaweb
if [ ! -f "$IW_DIR/.seeded" ]; then
  rm -rf "$IW_DIR" && mkdir -p "$IW_DIR/config"
  cat > "$IW_DIR/config/config.ini" <<'INI'
[global]
show_stacktraces = "0"
config_resource = "icingaweb_db"

[logging]
log = "none"
INI
  cat > "$IW_DIR/config/resources.ini" <<'INI'
[icingaweb_db]
type = "db"
db = "pgsql"
host = "127.0.0.1"
port = "5432"
dbname = "icingaweb_seed"
username = "postgres"
password = ""
charset = "utf8"
INI
  printf '[icingaweb2]\nbackend = "db"\nresource = "icingaweb_db"\n' > "$IW_DIR/config/authentication.ini"
  printf '[icingaweb2]\nbackend = "db"\nresource = "icingaweb_db"\n' > "$IW_DIR/config/groups.ini"
  printf '[Administrators]\nusers = "admin"\npermissions = "*"\ngroups = "Administrators"\n' > "$IW_DIR/config/roles.ini"
  mkdir -p "$IW_DIR/config/enabledModules"
  PGOPTIONS='--client-min-messages=warning' psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS icingaweb_seed" -c "CREATE DATABASE icingaweb_seed"
  psql -q -h 127.0.0.1 -U postgres -d icingaweb_seed -v ON_ERROR_STOP=1 -f /usr/share/icingaweb2/schema/pgsql.schema.sql >/dev/null
  for u in "admin:iw-pass-1:1" "ann:Ann-pass-31:1" "bob:Bob-pass-47:1" "cora:Cora-pass-59:1" "dan:Dan-pass-61:0"; do
    IFS=: read -r name pass active <<EOF
$u
EOF
    hash=$(php -r 'echo password_hash($argv[1], PASSWORD_DEFAULT);' "$pass")
    psql -q -h 127.0.0.1 -U postgres -d icingaweb_seed -v ON_ERROR_STOP=1 \
      -c "INSERT INTO icingaweb_user (name, active, password_hash, ctime) VALUES ('$name', $active, convert_to('$hash', 'UTF8'), NOW())" >/dev/null
  done
  psql -q -h 127.0.0.1 -U postgres -d icingaweb_seed -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
INSERT INTO icingaweb_group (id, name, ctime) VALUES (1, 'Administrators', NOW()), (2, 'Orchard operators', NOW()), (3, 'Cellar viewers', NOW());
SELECT setval('icingaweb_group_id_seq', 3);
INSERT INTO icingaweb_group_membership (group_id, username, ctime) VALUES (1, 'admin', NOW()), (2, 'ann', NOW()), (2, 'bob', NOW()), (3, 'cora', NOW());
SQL
  cat > "$IW_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: Icinga Web 2 on PORT over a fresh copy of the seed database and its own config
# directory (see scripts/acceptance-setup.sh); the copy is dropped when the test stops this script.
set -e
DIR=/tmp/cs-acceptance-icingaweb-$1
find /tmp -maxdepth 1 -name 'cs-acceptance-icingaweb-*' -mmin +120 -exec rm -rf {} + 2>/dev/null || true
rm -rf "$DIR" && cp -r /var/lib/cs-acceptance/icingaweb/config "$DIR"
sed -i "s/^dbname = .*/dbname = \"icingaweb_run_$1\"/" "$DIR/resources.ini"
exec /var/lib/cs-acceptance/lib/pg-copy.sh icingaweb_seed "icingaweb_run_$1" \
  env ICINGAWEB_CONFIGDIR="$DIR" php -S "127.0.0.1:$1" -t /usr/share/icingaweb2/public /usr/share/icingaweb2/public/index.php
SERVE
  chmod +x "$IW_DIR/serve.sh"
  touch "$IW_DIR/.seeded"
fi

# ---- TiddlyWiki 5.4 (npm `tiddlywiki`: a single-page wiki whose Node.js server keeps each tiddler
# in a file; the page loads every tiddler's fields as JSON, fetches a tiddler's text when it is
# opened, and syncs edits with JSON PUT and DELETE to /recipes/default/tiddlers/<title> (the title
# in the path), every write with `X-Requested-With: TiddlyWiki`; behind HTTP Basic auth). A user and
# seeded tiddlers (tags, custom fields); serve.sh serves a fresh copy of the wiki per port.
TW_DIR=/var/lib/cs-acceptance/tiddlywiki
if [ ! -f "$TW_DIR/.seeded" ]; then
  rm -rf "$TW_DIR" && mkdir -p "$TW_DIR"
  echo '{ "name": "cs-acceptance-tiddlywiki", "private": true }' > "$TW_DIR/package.json"
  (cd "$TW_DIR" && npm install --no-audit --no-fund --loglevel=error tiddlywiki@5.4.1 >/dev/null)
  node "$TW_DIR/node_modules/tiddlywiki/tiddlywiki.js" "$TW_DIR/wiki" --init server >/dev/null
  printf 'username,password\nseed,tw-pass-1\n' > "$TW_DIR/users.csv"
  mkdir -p "$TW_DIR/wiki/tiddlers"
  twtid() { # file title tags fields(;-separated) text
    {
      printf 'created: 20261101090000000\nmodified: 20261102100000000\ncreator: seed\nmodifier: seed\n'
      printf 'tags: %s\ntitle: %s\ntype: text/vnd.tiddlywiki\n' "$3" "$2"
      [ -n "$4" ] && printf '%s\n' "$4" | tr ';' '\n'
      printf '\n%s\n' "$5"
    } > "$TW_DIR/wiki/tiddlers/$1.tid"
  }
  twtid codling 'Codling Moth' 'Pests [[Apple trees]]' 'severity: high;season: May to August' \
    'Larvae tunnel into the fruit. Hang pheromone traps in May and band the trunks in June.'
  twtid blight 'Fire Blight' 'Diseases [[Pear trees]]' 'severity: high;season: Spring' \
    'Shoots wilt and blacken as if scorched. Cut out infected wood 30 cm below the canker.'
  twtid scab 'Apple Scab' 'Diseases [[Apple trees]]' 'severity: medium;season: Spring' \
    'Olive-green spots on leaves and fruit. Rake up fallen leaves in autumn.'
  twtid bramley 'Bramley Seedling' 'Varieties [[Apple trees]]' 'row: 4;harvest: October' \
    'A cooking apple, large and sharp. Stores until March.'
  twtid conference 'Conference Pear' 'Varieties [[Pear trees]]' 'row: 7;harvest: September' \
    'A long pear, sweet when ripe. Pick firm and ripen indoors.'
  twtid pruning 'Winter Pruning' 'Tasks' 'due: 2027-01-15' \
    'Prune the apple rows before the buds break. Leave the stone fruit until summer.'
  twtid harvest 'Harvest Log' 'Tasks [[Apple trees]]' '' \
    "|!Row |!Variety |!Crates |
|4 |Bramley Seedling |31 |
|7 |Conference Pear |18 |"
  cat > "$TW_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: TiddlyWiki on PORT over a fresh copy of the seeded wiki (see scripts/acceptance-setup.sh).
set -e
W="/tmp/cs-acceptance-tiddlywiki-$1"
rm -rf "$W" && cp -r /var/lib/cs-acceptance/tiddlywiki/wiki "$W"
exec node /var/lib/cs-acceptance/tiddlywiki/node_modules/tiddlywiki/tiddlywiki.js "$W" --listen host=127.0.0.1 "port=$1" \
  credentials=/var/lib/cs-acceptance/tiddlywiki/users.csv 'readers=(authenticated)' 'writers=(authenticated)'
SERVE
  chmod +x "$TW_DIR/serve.sh"
  touch "$TW_DIR/.seeded"
fi
find /tmp -maxdepth 1 -name 'cs-acceptance-tiddlywiki-*' -mmin +120 -exec rm -rf {} + 2>/dev/null || true

# ---- Deluge 2.0 (deluged, a BitTorrent daemon, and deluge-web: an ExtJS web UI over one JSON-RPC
# endpoint, /json, signed in with a password only, by a session cookie; its torrent list,
# web.update_ui, keys each torrent's record by its info-hash and holds no hash field). Four complete
# torrents made here from local files of distinct sizes (no trackers), seeding. No DHT, LSD, uTP-PEX,
# UPnP or NAT-PMP, every socket on loopback: nothing leaves the machine. serve.sh runs both
# processes over a fresh copy of the configuration (the torrents' state) per start.
DL_DIR=/var/lib/cs-acceptance/deluge
DL_HOST=a1b2c3d4e5f60718293a4b5c6d7e8f90
if [ ! -f "$DL_DIR/.seeded" ]; then
  rm -rf "$DL_DIR" && mkdir -p "$DL_DIR/config" "$DL_DIR/downloads" "$DL_DIR/torrents"
  SALT=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
  SHA=$(printf '%s%s' "$SALT" 'dl-pass-1' | sha1sum | cut -d' ' -f1)
  cat > "$DL_DIR/config/web.conf" <<JSON
{"file": 2, "format": 1}{"port": 9005, "interface": "127.0.0.1", "pwd_salt": "$SALT", "pwd_sha1": "$SHA", "session_timeout": 3600, "sessions": {}, "base": "/", "https": false, "default_daemon": "$DL_HOST", "first_login": false, "show_session_speed": false, "show_sidebar": true, "sidebar_show_zero": false, "sidebar_multiple_filters": true, "language": "", "enabled_plugins": []}
JSON
  printf 'localclient:%s:10\nseed:dl-daemon-pass-1:10\n' "$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')" > "$DL_DIR/config/auth"
  chmod 600 "$DL_DIR/config/auth"
  cat > "$DL_DIR/config/core.conf" <<JSON
{"file": 1, "format": 1}{"dht": false, "upnp": false, "natpmp": false, "utpex": false, "lsd": false, "new_release_check": false, "send_info": false, "allow_remote": false, "random_port": false, "listen_ports": [9007, 9007], "listen_interface": "127.0.0.1", "outgoing_interface": "", "download_location": "$DL_DIR/downloads", "move_completed": false, "copy_torrent_file": false, "add_paused": true, "enabled_plugins": [], "geoip_db_location": ""}
JSON
  i=0
  for n in "Cider Recipes" "Grafting Handbook" "Orchard Survey 2026" "Pruning Guide"; do
    i=$((i + 1))
    mkdir -p "$DL_DIR/downloads/$n"
    head -c $((200000 + i * 37000)) /dev/urandom > "$DL_DIR/downloads/$n/data.bin"
    echo "$n: notes from the orchard" > "$DL_DIR/downloads/$n/README.txt"
    transmission-create -o "$DL_DIR/torrents/$n.torrent" -c "$n, made for the acceptance suite" "$DL_DIR/downloads/$n" >/dev/null
  done
  printf '{"file": 3, "format": 1}{"hosts": [["%s", "127.0.0.1", 9006, "seed", "dl-daemon-pass-1"]]}\n' "$DL_HOST" > "$DL_DIR/config/hostlist.conf"
  cat > "$DL_DIR/wait-port.sh" <<'WAIT'
#!/bin/sh
# wait-port.sh PORT: returns once 127.0.0.1:PORT accepts a connection (at most 30 s).
exec python3 -c "
import socket, sys, time
for _ in range(300):
    try:
        socket.create_connection(('127.0.0.1', int(sys.argv[1])), 0.5).close()
        sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(1)" "$1"
WAIT
  chmod +x "$DL_DIR/wait-port.sh"
  deluged -c "$DL_DIR/config" -d -p 9006 -u 127.0.0.1 -i 127.0.0.1 -L error >/dev/null 2>&1 &
  DLD_PID=$!
  "$DL_DIR/wait-port.sh" 9006
  deluge-web -c "$DL_DIR/config" -d -p 9005 -i 127.0.0.1 -L error >/dev/null 2>&1 &
  DLW_PID=$!
  DLJ=$(mktemp)
  # (deluge-web connects to its default daemon once, as it starts: the daemon listens first.)
  dlj() { curl -s -c "$DLJ" -b "$DLJ" -H 'Content-Type: application/json' -d "$1" http://127.0.0.1:9005/json; }
  for _ in $(seq 1 60); do dlj '{"method":"auth.login","params":["dl-pass-1"],"id":1}' | grep -q '"result": true' && break; sleep 0.5; done
  for _ in $(seq 1 60); do dlj '{"method":"web.connected","params":[],"id":2}' | grep -q '"result": true' && break; sleep 0.5; done
  for f in "$DL_DIR"/torrents/*.torrent; do
    dlj "{\"method\":\"web.add_torrents\",\"params\":[[{\"path\":\"$f\",\"options\":{\"download_location\":\"$DL_DIR/downloads\"}}]],\"id\":3}" >/dev/null
  done
  IDS=$(dlj '{"method":"web.update_ui","params":[["name"],{}],"id":4}' | python3 -c 'import json,sys; print(json.dumps(list(json.load(sys.stdin)["result"]["torrents"])))')
  dlj "{\"method\":\"core.force_recheck\",\"params\":[$IDS],\"id\":5}" >/dev/null
  for _ in $(seq 1 60); do
    dlj '{"method":"web.update_ui","params":[["progress"],{}],"id":6}' | python3 -c 'import json,sys; t=json.load(sys.stdin)["result"]["torrents"]; sys.exit(0 if len(t)==4 and all(v["progress"]==100 for v in t.values()) else 1)' && break
    sleep 0.5
  done
  dlj "{\"method\":\"core.resume_torrent\",\"params\":[$IDS],\"id\":7}" >/dev/null
  sleep 2
  kill "$DLW_PID" "$DLD_PID" 2>/dev/null || true
  wait "$DLW_PID" "$DLD_PID" 2>/dev/null || true
  rm -f "$DLJ"
  cat > "$DL_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: deluge-web on PORT and its deluged on PORT+1 (peers on PORT+2), over a fresh copy
# of the seeded configuration (see scripts/acceptance-setup.sh); both stopped with this script.
W="/tmp/cs-acceptance-deluge-$1"
rm -rf "$W" && cp -r /var/lib/cs-acceptance/deluge/config "$W"
D=$(($1 + 1))
T=$(($1 + 2))
sed -i "s/\"listen_ports\": \[[0-9]*, [0-9]*\]/\"listen_ports\": [$T, $T]/" "$W/core.conf"
sed -i "s/\"127.0.0.1\", [0-9]*, \"seed\"/\"127.0.0.1\", $D, \"seed\"/" "$W/hostlist.conf"
deluged -c "$W" -d -p "$D" -u 127.0.0.1 -i 127.0.0.1 -L error &
DPID=$!
# (deluge-web connects to its default daemon once, as it starts: the daemon listens first.)
/var/lib/cs-acceptance/deluge/wait-port.sh "$D" || true
deluge-web -c "$W" -d -p "$1" -i 127.0.0.1 -L error &
WPID=$!
stop() { kill $WPID $DPID 2>/dev/null || true; wait $WPID $DPID 2>/dev/null || true; rm -rf "$W"; }
trap 'stop; exit 0' INT TERM
wait $WPID || true
stop
SERVE
  chmod +x "$DL_DIR/serve.sh"
  touch "$DL_DIR/.seeded"
fi

# ---- Cacti 1.2 (Debian's cacti: a PHP network-graphing console over MariaDB; jQuery loads every
# page's content by XHR as an HTML fragment (`header=false`) and submits its forms by XHR; every POST
# carries csrf-magic's `__csrf_magic` token, printed into each form and the page's script). Seeded
# with eight devices (no SNMP, disabled: nothing is polled). serve.sh serves it with `php -S` over a
# fresh copy of the seed database per start, dropped when it stops.
CT_DIR=/var/lib/cs-acceptance/cacti
if [ ! -f "$CT_DIR/.seeded" ]; then
  rm -rf "$CT_DIR" && mkdir -p "$CT_DIR"
  F=/etc/cacti/debian.php
  # (The database named by the environment of the `php -S` serving it; links relative to /.)
  sed -i "s/^\$database_default  = .*/\$database_default  = getenv('CS_CACTI_DB') ?: 'cacti_seed';/; s/^\$database_hostname = .*/\$database_hostname = '127.0.0.1';/; s/^\$database_username = .*/\$database_username = 'cacti';/; s/^\$database_password = .*/\$database_password = 'cacti-db-pass-1';/; s#^\$url_path = .*#\$url_path = '/';#" "$F"
  mysql -e "DROP DATABASE IF EXISTS cacti_seed; CREATE DATABASE cacti_seed CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;
    CREATE USER IF NOT EXISTS 'cacti'@'localhost' IDENTIFIED BY 'cacti-db-pass-1'; CREATE USER IF NOT EXISTS 'cacti'@'127.0.0.1' IDENTIFIED BY 'cacti-db-pass-1';
    GRANT ALL ON \`cacti%\`.* TO 'cacti'@'localhost'; GRANT ALL ON \`cacti%\`.* TO 'cacti'@'127.0.0.1';
    GRANT SELECT ON mysql.time_zone_name TO 'cacti'@'localhost'; GRANT SELECT ON mysql.time_zone_name TO 'cacti'@'127.0.0.1';"
  mysql cacti_seed < /usr/share/dbconfig-common/data/cacti/install/mysql
  # (Its installer checks the server's time zone tables.)
  [ "$(mysql -N -e 'select count(*) from mysql.time_zone_name')" != 0 ] || mysql_tzinfo_to_sql /usr/share/zoneinfo 2>/dev/null | mysql mysql
  (cd /usr/share/cacti/cli && CS_CACTI_DB=cacti_seed php install_cacti.php --accept-eula --install --force >/dev/null)
  HASH=$(php -r 'echo password_hash("cacti-admin-pass-1", PASSWORD_DEFAULT);')
  mysql cacti_seed -e "UPDATE user_auth SET password='$HASH', must_change_password='', password_change='' WHERE username='admin'"
  i=10
  for d in "Orchard Gateway" "Cider Press Controller" "Greenhouse Sensor Hub" "Packing Shed Switch" "Irrigation Pump" "Weather Mast" "Cold Store Monitor" "Barn Access Point"; do
    i=$((i + 1))
    (cd /usr/share/cacti/cli && CS_CACTI_DB=cacti_seed php add_device.php --description="$d" --ip=127.0.0.$i --template=0 --avail=none --version=0 \
      --notes="Seeded for the acceptance suite: $d" --disable=1 >/dev/null)
  done
  mysqldump cacti_seed > "$CT_DIR/seed.sql"
  cat > "$CT_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: Cacti on PORT (`php -S`) over a fresh copy of the seed database (see
# scripts/acceptance-setup.sh), dropped when the test stops this script.
DB="cacti_run_$1"
mysql -e "DROP DATABASE IF EXISTS $DB; CREATE DATABASE $DB CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"
mysql "$DB" < /var/lib/cs-acceptance/cacti/seed.sql
CS_CACTI_DB="$DB" php -S "127.0.0.1:$1" -t /usr/share/cacti/site &
CHILD=$!
drop() { kill $CHILD 2>/dev/null || true; wait $CHILD 2>/dev/null || true; mysql -e "DROP DATABASE IF EXISTS $DB" || true; }
trap 'drop; exit 0' INT TERM
wait $CHILD || true
drop
SERVE
  chmod +x "$CT_DIR/serve.sh"
  touch "$CT_DIR/.seeded"
fi

# ---- Node-RED 4.1 (npm `node-red`: a flow editor, a jQuery single-page app. Its sign-in is an
# OAuth password grant (`POST /auth/token`, a form) whose JSON answer holds a bearer token the page
# keeps in localStorage and sends as `Authorization: Bearer …` on every call; a deploy sends the
# whole flow document back (`POST /flows` with its `rev`); an inject node's button is
# `POST /inject/<node id>`, answered with a plain "OK"). Seeded flows: inject nodes that log their
# payload into the global context, and an HTTP endpoint that answers that log; serve.sh runs a
# fresh copy of the seeded user directory per port.
NR_DIR=/var/lib/cs-acceptance/nodered
if [ ! -f "$NR_DIR/.seeded" ]; then
  rm -rf "$NR_DIR" && mkdir -p "$NR_DIR/user"
  echo '{ "name": "cs-acceptance-nodered", "private": true }' > "$NR_DIR/package.json"
  (cd "$NR_DIR" && npm install --no-audit --no-fund --loglevel=error node-red@4.1.15 >/dev/null)
  NR_HASH=$(cd "$NR_DIR" && node -e "console.log(require('bcryptjs').hashSync('nr-pass-1', 8))")
  cat > "$NR_DIR/user/settings.js" <<SETTINGS
// Node-RED settings for the acceptance suite (scripts/acceptance-setup.sh): loopback only, one
// signed-in user, nothing that reaches outside hosts (no palette catalogue, no telemetry).
module.exports = {
  uiPort: Number(process.env.PORT), uiHost: '127.0.0.1',
  flowFile: 'flows.json', flowFilePretty: true, credentialSecret: false,
  adminAuth: { type: 'credentials', users: [{ username: 'seed', password: '$NR_HASH', permissions: '*' }] },
  editorTheme: { tours: false, projects: { enabled: false }, palette: { catalogues: [] } },
  diagnostics: { enabled: false }, telemetry: { enabled: false },
  externalModules: { autoInstall: false, palette: { allowInstall: false } },
  functionExternalModules: false,
  logging: { console: { level: 'warn' } },
};
SETTINGS
  cat > "$NR_DIR/user/flows.json" <<'FLOWS'
[
  { "id": "tab_orchard", "type": "tab", "label": "Orchard", "disabled": false, "info": "Harvest and irrigation" },
  { "id": "inj_water", "type": "inject", "z": "tab_orchard", "name": "Water the orchard", "props": [{ "p": "payload" }, { "p": "topic", "vt": "str" }],
    "repeat": "", "crontab": "", "once": false, "onceDelay": 0.1, "topic": "irrigation",
    "payload": "{\"litres\":40,\"rows\":\"north\"}", "payloadType": "json", "x": 150, "y": 80, "wires": [["fn_log"]] },
  { "id": "inj_pick", "type": "inject", "z": "tab_orchard", "name": "Pick apples", "props": [{ "p": "payload" }, { "p": "topic", "vt": "str" }],
    "repeat": "", "crontab": "", "once": false, "onceDelay": 0.1, "topic": "harvest",
    "payload": "Bramley", "payloadType": "str", "x": 150, "y": 140, "wires": [["fn_log"]] },
  { "id": "inj_prune", "type": "inject", "z": "tab_orchard", "name": "Prune the pears", "props": [{ "p": "payload" }, { "p": "topic", "vt": "str" }],
    "repeat": "", "crontab": "", "once": false, "onceDelay": 0.1, "topic": "pruning",
    "payload": "Conference", "payloadType": "str", "x": 150, "y": 200, "wires": [["fn_log"]] },
  { "id": "fn_log", "type": "function", "z": "tab_orchard", "name": "Log the task",
    "func": "const log = global.get('tasks') || [];\nlog.push({ topic: msg.topic, payload: msg.payload });\nglobal.set('tasks', log);\nreturn msg;",
    "outputs": 1, "x": 380, "y": 140, "wires": [["dbg_out"]] },
  { "id": "dbg_out", "type": "debug", "z": "tab_orchard", "name": "Orchard log", "active": true, "tosidebar": true,
    "console": false, "tostatus": false, "complete": "payload", "targetType": "msg", "x": 580, "y": 140, "wires": [] },
  { "id": "http_tasks", "type": "http in", "z": "tab_orchard", "name": "", "url": "/orchard/tasks", "method": "get",
    "upload": false, "x": 140, "y": 280, "wires": [["fn_tasks"]] },
  { "id": "fn_tasks", "type": "function", "z": "tab_orchard", "name": "Tasks so far",
    "func": "msg.payload = global.get('tasks') || [];\nreturn msg;", "outputs": 1, "x": 360, "y": 280, "wires": [["http_resp"]] },
  { "id": "http_resp", "type": "http response", "z": "tab_orchard", "name": "", "statusCode": "", "headers": {}, "x": 560, "y": 280, "wires": [] },
  { "id": "tab_cellar", "type": "tab", "label": "Cellar", "disabled": false, "info": "Cider pressing" },
  { "id": "inj_press", "type": "inject", "z": "tab_cellar", "name": "Press cider", "props": [{ "p": "payload" }, { "p": "topic", "vt": "str" }],
    "repeat": "", "crontab": "", "once": false, "onceDelay": 0.1, "topic": "cider",
    "payload": "Kingston Black", "payloadType": "str", "x": 150, "y": 80, "wires": [["fn_press"]] },
  { "id": "fn_press", "type": "function", "z": "tab_cellar", "name": "Log the pressing",
    "func": "const log = global.get('tasks') || [];\nlog.push({ topic: msg.topic, payload: msg.payload });\nglobal.set('tasks', log);\nreturn msg;",
    "outputs": 1, "x": 380, "y": 80, "wires": [[]] }
]
FLOWS
  cat > "$NR_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: Node-RED on PORT over a fresh copy of the seeded user directory (see scripts/acceptance-setup.sh).
set -e
U="/tmp/cs-acceptance-nodered-$1"
rm -rf "$U" && cp -r /var/lib/cs-acceptance/nodered/user "$U"
PORT="$1" exec node /var/lib/cs-acceptance/nodered/node_modules/node-red/red.js --userDir "$U"
SERVE
  chmod +x "$NR_DIR/serve.sh"
  touch "$NR_DIR/.seeded"
fi

# ---- Unleash 6.10 (npm `unleash-server`: a feature-flag service; its React (MUI) admin app signs
# in by posting JSON to `/auth/simple/login` and keeps the session in a cookie, then talks only JSON
# REST — a flag's create dialog validates the name as it is typed and posts the flag; an
# environment's switch is a bare `POST …/environments/<env>/on`; the flag list's search box is a
# `GET /api/admin/search/features?query=…` whose answer the table shows). The seed database
# `unleash_seed`: an admin `seed` and six flags of the default project, one switched on in
# development. Google's web fonts are taken out of its page (outside hosts). Every start makes a
# fresh database from the seed named by the port (serve.sh).
UL_DIR=/var/lib/cs-acceptance/unleash
if [ ! -f "$UL_DIR/.seeded" ]; then
  rm -rf "$UL_DIR" && mkdir -p "$UL_DIR"
  echo '{ "name": "cs-acceptance-unleash", "private": true }' > "$UL_DIR/package.json"
  (cd "$UL_DIR" && npm install --no-audit --no-fund --loglevel=error unleash-server@6.10.1 >/dev/null)
  perl -0pi -e 's/<link[^>]*fonts\.g(?:oogleapis|static)\.com[^>]*>\s*//g' "$UL_DIR/node_modules/unleash-server/frontend/build/index.html"
  cat > "$UL_DIR/unleash.js" <<'JS'
// Unleash for the acceptance suite (scripts/acceptance-setup.sh): loopback only, the database
// UNLEASH_DB, an admin `seed`, no version check or telemetry (no outside hosts). Its limit of ten
// sign-ins a minute is raised: a test signs in far more often (the recording, the validation
// replay, each run, each check through the admin API).
const unleash = require('unleash-server');
unleash
  .start({
    db: { host: '127.0.0.1', port: 5432, user: 'postgres', password: '', database: process.env.UNLEASH_DB, ssl: false },
    server: { port: Number(process.env.PORT), host: '127.0.0.1' },
    authentication: {
      initialAdminUser: { username: 'seed', password: 'unleash-pass-1' },
      // (The tests' own checks use an admin token: a signed-in session of theirs would be ended by
      // the sign-ins of the recordings and runs beside it — Unleash keeps five sessions a user.)
      initApiTokens: [{ tokenName: 'acceptance-checks', type: 'admin', environment: '*', project: '*', secret: '*:*.cs-acceptance-checks-7d41e0' }],
    },
    versionCheck: { enable: false },
    sendTelemetry: false,
    rateLimiting: { simpleLoginMaxPerMinute: 100000 },
    logLevel: 'error',
  })
  .catch((e) => { console.error(e); process.exit(1); });
JS
  psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS unleash_seed" -c "CREATE DATABASE unleash_seed"
  UNLEASH_DB=unleash_seed PORT=8979 node "$UL_DIR/unleash.js" >/dev/null 2>&1 &
  UL_PID=$!
  for _ in $(seq 1 90); do curl -sf http://127.0.0.1:8979/health >/dev/null && break; sleep 1; done
  UL=http://127.0.0.1:8979
  UL_JAR=$(mktemp)
  curl -sf -c "$UL_JAR" -H 'content-type: application/json' -d '{"username":"seed","password":"unleash-pass-1"}' "$UL/auth/simple/login" >/dev/null
  ul() { curl -sf -b "$UL_JAR" -H 'content-type: application/json' -X POST "$UL$1" ${2:+-d "$2"} >/dev/null; }
  ul /api/admin/projects/default/features '{"name":"orchard-irrigation","description":"Water the north rows on a timer","type":"release"}'
  ul /api/admin/projects/default/features '{"name":"cider-press-v2","description":"The new press scheduler","type":"experiment"}'
  ul /api/admin/projects/default/features '{"name":"harvest-calendar","description":"Show picking dates per variety","type":"release"}'
  ul /api/admin/projects/default/features '{"name":"pear-pruning-tips","description":"Seasonal pruning advice for pears","type":"kill-switch"}'
  ul /api/admin/projects/default/features '{"name":"pear-grafting-guide","description":"Step-by-step grafting for pear rootstock","type":"permission"}'
  ul /api/admin/projects/default/features '{"name":"frost-alerts","description":"Warn growers before a frost night","type":"operational"}'
  ul /api/admin/projects/default/features/orchard-irrigation/environments/development/strategies \
    '{"name":"flexibleRollout","parameters":{"rollout":"100","stickiness":"default","groupId":"orchard-irrigation"}}'
  ul /api/admin/projects/default/features/orchard-irrigation/environments/development/on
  rm -f "$UL_JAR"
  kill $UL_PID; wait $UL_PID 2>/dev/null || true
  cat > "$UL_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: Unleash on PORT over a fresh copy of the seed database (see
# scripts/acceptance-setup.sh); the copy is dropped when the test stops this script.
cd /var/lib/cs-acceptance/unleash
exec /var/lib/cs-acceptance/lib/pg-copy.sh unleash_seed "unleash_run_$1" env PORT="$1" UNLEASH_DB="unleash_run_$1" node unleash.js
SERVE
  chmod +x "$UL_DIR/serve.sh"
  touch "$UL_DIR/.seeded"
fi

# ---- n8n 1.123 (npm `n8n`: a workflow-automation tool; its Vue (Element Plus) editor signs in by
# posting JSON to `/rest/login`, which sets a cookie bound to a `browser-id` header the page sends
# on every call; then JSON REST only — the workflow list's search is a JSON `filter` inside the
# query string, a workflow's switch and its rename send the workflow back with the version the page
# holds). Two packages come from outside the npm registry or do not build on Node 20 (`xlsx` from a
# CDN, `isolated-vm` 6): both are pinned by overrides to npm releases. Seeded by its REST API: an
# owner, three tags and seven workflows (two with a schedule trigger, so that they can be switched
# on). Every start copies the seeded user folder (serve.sh); telemetry, templates and version
# checks are off (outside hosts).
N8_DIR=/var/lib/cs-acceptance/n8n
if [ ! -f "$N8_DIR/.seeded" ]; then
  rm -rf "$N8_DIR" && mkdir -p "$N8_DIR"
  echo '{ "name": "cs-acceptance-n8n", "private": true, "overrides": { "xlsx": "0.18.5", "isolated-vm": "5.0.4" } }' > "$N8_DIR/package.json"
  (cd "$N8_DIR" && npm install --no-audit --no-fund --loglevel=error n8n@1.123.81 >/dev/null)
  cat > "$N8_DIR/env.sh" <<'ENV'
# n8n's settings for the acceptance suite (loopback, no outside hosts), sourced with N8_FOLDER
# (its user folder) and N8_PORT set. NODE_ENV as when unset: a test runner's `test` keeps n8n from
# listening at all, and `production` limits sign-ins to five a minute (each recording, validation
# replay, run and check of the suite signs in).
export NODE_ENV=development N8N_USER_FOLDER="$N8_FOLDER" N8N_PORT="$N8_PORT" N8N_LISTEN_ADDRESS=127.0.0.1 N8N_HOST=127.0.0.1 N8N_PROTOCOL=http \
  N8N_SECURE_COOKIE=false N8N_DIAGNOSTICS_ENABLED=false N8N_VERSION_NOTIFICATIONS_ENABLED=false \
  N8N_TEMPLATES_ENABLED=false N8N_PERSONALIZATION_ENABLED=false N8N_HIRING_BANNER_ENABLED=false N8N_AI_ENABLED=false \
  N8N_ENCRYPTION_KEY=cs-acceptance-n8n-key-5e1 N8N_RUNNERS_ENABLED=false N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS=false \
  N8N_COMMUNITY_PACKAGES_ENABLED=false N8N_LOG_LEVEL=warn
ENV
  cat > "$N8_DIR/seed.mjs" <<'JS'
// Seeds n8n through its REST API (scripts/acceptance-setup.sh): the owner, tags, workflows.
import crypto from 'node:crypto';
const base = process.argv[2];
let cookie = '';
async function call(method, path, body) {
  const r = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', 'browser-id': 'acceptance-seed', cookie },
    body: body ? JSON.stringify(body) : undefined,
  });
  const set = r.headers.get('set-cookie');
  if (set) cookie = set.split(';')[0];
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return JSON.parse(text).data;
}
const owner = { email: 'owner@example.com', password: 'N8n-owner-pass-1' };
await call('POST', '/rest/owner/setup', { ...owner, firstName: 'Orchard', lastName: 'Owner' });
await call('POST', '/rest/login', { emailOrLdapLoginId: owner.email, password: owner.password });
const tags = {};
for (const name of ['orchard', 'weather', 'packing']) tags[name] = (await call('POST', '/rest/tags', { name })).id;
const node = (name, type, parameters, x) => ({ id: crypto.randomUUID(), name, type, typeVersion: 1, position: [x, 0], parameters });
const schedule = (hours) =>
  ({ ...node('Schedule Trigger', 'n8n-nodes-base.scheduleTrigger', { rule: { interval: [{ field: 'hours', hoursInterval: hours }] } }, 0), typeVersion: 1.2 });
const manual = () => node("When clicking 'Execute workflow'", 'n8n-nodes-base.manualTrigger', {}, 0);
for (const [name, trigger, step, tagged] of [
  ['Frost alerts', schedule(6), 'Warn growers', ['weather']],
  ['Harvest calendar', schedule(12), 'Post the calendar', ['orchard']],
  ['Pear grafting guide', manual(), 'Send the guide', ['orchard']],
  ['Orchard irrigation', manual(), 'Open the valves', ['orchard', 'weather']],
  ['Packing shed rota', manual(), 'Share the rota', ['packing']],
  ['Cider press checks', manual(), 'Check the press', ['packing']],
  ['Bee hive visits', manual(), 'Visit the hives', ['orchard']],
]) {
  await call('POST', '/rest/workflows', {
    name,
    active: false,
    nodes: [trigger, node(step, 'n8n-nodes-base.noOp', {}, 220)],
    connections: { [trigger.name]: { main: [[{ node: step, type: 'main', index: 0 }]] } },
    settings: { executionOrder: 'v1' },
    tags: tagged.map((t) => tags[t]),
  });
}
JS
  (
    N8_FOLDER="$N8_DIR/seed" N8_PORT=8978
    . "$N8_DIR/env.sh"
    "$N8_DIR/node_modules/.bin/n8n" start >/dev/null 2>&1 &
    N8_PID=$!
    trap 'kill $N8_PID 2>/dev/null || true' EXIT
    # (Its answer is "n8n is starting up" until the database is ready, then its own JSON.)
    for _ in $(seq 1 120); do curl -sf http://127.0.0.1:8978/rest/settings | grep -q '"data"' && break; sleep 1; done
    node "$N8_DIR/seed.mjs" http://127.0.0.1:8978
  )
  cat > "$N8_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: n8n on PORT over a fresh copy of the seeded user folder (scripts/acceptance-setup.sh).
set -e
RUN=/tmp/cs-n8n-run-$1
rm -rf "$RUN" && cp -a /var/lib/cs-acceptance/n8n/seed "$RUN"
N8_FOLDER="$RUN" N8_PORT="$1"
. /var/lib/cs-acceptance/n8n/env.sh
exec /var/lib/cs-acceptance/n8n/node_modules/.bin/n8n start
SERVE
  chmod +x "$N8_DIR/serve.sh"
  touch "$N8_DIR/.seeded"
fi

# ---- Rspamd 3.4 (Debian's rspamd: a spam filter whose controller serves its web UI, a jQuery
# single-page app. Its sign-in is a password only, kept in the page's session storage and sent as a
# `Password` header with every call; a message to scan or learn is posted raw — an email's text —
# under jQuery's form content type; the actions' thresholds are saved as a JSON array by position;
# a list (a map file) is read and written whole, named by a `Map` header). Only the controller
# worker runs, with a private Redis on a unix socket (history, Bayes); the modules that ask outside
# hosts are off and its DNS points at a closed loopback port, so nothing leaves 127.0.0.1. The
# seed: two list files (blocked senders, subject words) checked by multimap rules. Every start
# copies them (serve.sh).
RS_DIR=/var/lib/cs-acceptance/rspamd
if [ ! -f "$RS_DIR/.seeded" ]; then
  rm -rf "$RS_DIR" && mkdir -p "$RS_DIR/conf/local.d" "$RS_DIR/conf/override.d" "$RS_DIR/seed/maps"
  RS_HASH=$(rspamadm pw -p 'Rspamd-admin-pass-1' | tail -1)
  cat > "$RS_DIR/rspamd.conf" <<CONF
# acceptance-suite: Debian's rules and modules, only the controller worker, on 127.0.0.1:\${PORT}
.include "\$CONFDIR/common.conf"
options {
  pidfile = "\$RUNDIR/rspamd.pid";
  .include "\$CONFDIR/options.inc"
  .include(try=true; priority=10) "\$LOCAL_CONFDIR/override.d/options.inc"
}
logging {
  type = "file";
  filename = "\$LOGDIR/rspamd.log";
  level = "notice";
}
worker "controller" {
  bind_socket = "127.0.0.1:\${PORT}";
  count = 1;
  password = "$RS_HASH";
  static_dir = "\${WWWDIR}";
}
CONF
  cat > "$RS_DIR/conf/override.d/options.inc" <<'CONF'
# (No resolver but a closed loopback port: lookups fail at once, nothing leaves 127.0.0.1.)
dns {
  nameserver = ["127.0.0.1:9"];
  timeout = 0.2s;
  retransmits = 1;
}
CONF
  echo 'servers = "${RUNDIR}/redis.sock";' > "$RS_DIR/conf/local.d/redis.conf"
  for m in rbl fuzzy_check phishing spf dkim dmarc arc whitelist mid mime_types rspamd_update asn emails url_redirector hfilter reputation neural ratelimit greylist dkim_signing bimi; do
    echo 'enabled = false;' > "$RS_DIR/conf/override.d/$m.conf"
  done
  cat > "$RS_DIR/conf/local.d/multimap.conf" <<'CONF'
ORCHARD_BLOCKED_SENDER {
  type = "from";
  filter = "email:addr";
  map = "${DBDIR}/maps/blocked_senders.map";
  description = "Senders the orchard blocks";
  score = 8.0;
}
ORCHARD_SUBJECT_WORD {
  type = "header";
  header = "Subject";
  regexp = true;
  map = "${DBDIR}/maps/subject_words.map";
  description = "Subject words the orchard flags";
  score = 3.0;
}
CONF
  printf 'pest@aphid.example\n' > "$RS_DIR/seed/maps/blocked_senders.map"
  printf '/blight/i\n/codling moth/i\n' > "$RS_DIR/seed/maps/subject_words.map"
  cat > "$RS_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: Rspamd's controller (its web UI) on 127.0.0.1:PORT and a private Redis on a unix
# socket, over a fresh copy of the seed (scripts/acceptance-setup.sh).
set -e
RUN=/tmp/cs-rspamd-run-$1
rm -rf "$RUN" && mkdir -p "$RUN/run" "$RUN/log" && cp -a /var/lib/cs-acceptance/rspamd/seed "$RUN/db"
redis-server --port 0 --unixsocket "$RUN/run/redis.sock" --dir "$RUN/db" --save '' --appendonly no >"$RUN/log/redis.log" 2>&1 &
REDIS=$!
rspamd -f -i -u "$(id -un)" -g "$(id -gn)" -c /var/lib/cs-acceptance/rspamd/rspamd.conf --var="PORT=$1" --var="DBDIR=$RUN/db" \
  --var="RUNDIR=$RUN/run" --var="LOGDIR=$RUN/log" --var=LOCAL_CONFDIR=/var/lib/cs-acceptance/rspamd/conf >"$RUN/log/stdout" 2>&1 &
RSPAMD=$!
# (The test stops this script by its PID: both servers go with it. `wait` lets the trap run at once.)
trap 'kill $RSPAMD $REDIS 2>/dev/null; exit 0' INT TERM
trap 'kill $RSPAMD $REDIS 2>/dev/null' EXIT
wait $RSPAMD
SERVE
  chmod +x "$RS_DIR/serve.sh"
  touch "$RS_DIR/.seeded"
fi

# ---- CUPS 2.4 (Debian's cups: the print server's own web interface, server-rendered by its CGIs.
# Its admin pages and actions ask for HTTP Basic auth (a system user in the lpadmin group, checked
# by PAM); every form carries `org.cups.sid`, which must equal the cookie the CGI set; a printer's
# maintenance and administration are select boxes that submit their form on change). A private
# cupsd per start on the test's port and a unix socket, over a copy of the seed: four printers on
# `file:///dev/null` (sample drivers), the laser the default, and five jobs held indefinitely.
CU_DIR=/var/lib/cs-acceptance/cups
if [ ! -f "$CU_DIR/.seeded" ]; then
  rm -rf "$CU_DIR" && mkdir -p "$CU_DIR/seed/spool/tmp" "$CU_DIR/seed/cache" "$CU_DIR/seed/state" "$CU_DIR/seed/log" "$CU_DIR/seed/ppd" "$CU_DIR/seed/ssl"
  chmod 1777 "$CU_DIR/seed/spool/tmp"
  id orchardprint >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin -G lpadmin orchardprint
  echo 'orchardprint:Print-admin-pass-1' | chpasswd
  cat > "$CU_DIR/cups-files.conf.in" <<'CONF'
SystemGroup lpadmin root
User lp
Group lp
FileDevice Yes
ServerRoot @ROOT@
RequestRoot @ROOT@/spool
TempDir @ROOT@/spool/tmp
CacheDir @ROOT@/cache
StateDir @ROOT@/state
AccessLog @ROOT@/log/access_log
ErrorLog @ROOT@/log/error_log
PageLog @ROOT@/log/page_log
ServerBin /usr/lib/cups
DataDir /usr/share/cups
DocumentRoot /usr/share/cups/doc-root
CONF
  cat > "$CU_DIR/cupsd.conf.in" <<'CONF'
# acceptance-suite: the web interface on 127.0.0.1:@PORT@ and a unix socket; no browsing
LogLevel warn
Listen 127.0.0.1:@PORT@
Listen @ROOT@/cups.sock
Browsing No
BrowseLocalProtocols none
DefaultAuthType Basic
WebInterface Yes
ServerAlias *
DirtyCleanInterval 0
PreserveJobHistory Yes
<Location />
  Order allow,deny
  Allow all
</Location>
<Location /admin>
  AuthType Default
  Require user @SYSTEM
  Order allow,deny
  Allow all
</Location>
<Location /admin/conf>
  AuthType Default
  Require user @SYSTEM
  Order allow,deny
  Allow all
</Location>
<Policy default>
  JobPrivateAccess default
  JobPrivateValues default
  SubscriptionPrivateAccess default
  SubscriptionPrivateValues default
  <Limit Create-Job Print-Job Print-URI Validate-Job>
    Order deny,allow
  </Limit>
  <Limit Send-Document Send-URI Hold-Job Release-Job Restart-Job Purge-Jobs Set-Job-Attributes Create-Job-Subscription Renew-Subscription Cancel-Subscription Get-Notifications Reprocess-Job Cancel-Current-Job Suspend-Current-Job Resume-Job Cancel-My-Jobs Close-Job CUPS-Move-Job CUPS-Get-Document>
    Require user @OWNER @SYSTEM
    Order deny,allow
  </Limit>
  <Limit CUPS-Add-Modify-Printer CUPS-Delete-Printer CUPS-Add-Modify-Class CUPS-Delete-Class CUPS-Set-Default CUPS-Get-Devices>
    AuthType Default
    Require user @SYSTEM
    Order deny,allow
  </Limit>
  <Limit Pause-Printer Resume-Printer Enable-Printer Disable-Printer Pause-Printer-After-Current-Job Hold-New-Jobs Release-Held-New-Jobs Deactivate-Printer Activate-Printer Restart-Printer Shutdown-Printer Startup-Printer Promote-Job Schedule-Job-After Cancel-Jobs CUPS-Accept-Jobs CUPS-Reject-Jobs>
    AuthType Default
    Require user @SYSTEM
    Order deny,allow
  </Limit>
  <Limit Cancel-Job CUPS-Authenticate-Job>
    Require user @OWNER @SYSTEM
    Order deny,allow
  </Limit>
  <Limit All>
    Order deny,allow
  </Limit>
</Policy>
CONF
  cat > "$CU_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: a private cupsd (its web interface) on 127.0.0.1:PORT and on
# /tmp/cs-cups-run-PORT/cups.sock, over a fresh copy of the seed (scripts/acceptance-setup.sh).
set -e
RUN=/tmp/cs-cups-run-$1
rm -rf "$RUN" && cp -a /var/lib/cs-acceptance/cups/seed "$RUN"
sed "s#@ROOT@#$RUN#g" /var/lib/cs-acceptance/cups/cups-files.conf.in > "$RUN/cups-files.conf"
sed "s#@ROOT@#$RUN#g; s#@PORT@#$1#g" /var/lib/cs-acceptance/cups/cupsd.conf.in > "$RUN/cupsd.conf"
exec cupsd -f -c "$RUN/cupsd.conf" -s "$RUN/cups-files.conf"
SERVE
  chmod +x "$CU_DIR/serve.sh"
  # The seed: printers and held jobs made through a cupsd on the seed itself (root over its socket).
  SEED="$CU_DIR/seed"
  sed "s#@ROOT@#$SEED#g" "$CU_DIR/cups-files.conf.in" > "$SEED/cups-files.conf"
  sed "s#@ROOT@#$SEED#g; s#@PORT@#8998#g" "$CU_DIR/cupsd.conf.in" > "$SEED/cupsd.conf"
  cupsd -f -c "$SEED/cupsd.conf" -s "$SEED/cups-files.conf" &
  CUPSD=$!
  for i in $(seq 1 50); do [ -S "$SEED/cups.sock" ] && break; sleep 0.2; done
  S="$SEED/cups.sock"
  lpadmin -h "$S" -p Orchard_Laser -E -v file:///dev/null -m drv:///sample.drv/generic.ppd -D 'Orchard office laser' -L 'Packing shed' 2>&1 | grep -v deprecated || true
  lpadmin -h "$S" -p Greenhouse_Label -E -v file:///dev/null -m drv:///sample.drv/dymo.ppd -D 'Greenhouse label printer' -L 'Greenhouse 2' 2>&1 | grep -v deprecated || true
  lpadmin -h "$S" -p Cellar_Inkjet -E -v file:///dev/null -m drv:///sample.drv/deskjet.ppd -D 'Cellar inkjet' -L 'Cider cellar' 2>&1 | grep -v deprecated || true
  lpadmin -h "$S" -p Barn_Dotmatrix -E -v file:///dev/null -m drv:///sample.drv/epson24.ppd -D 'Barn dot matrix' -L 'Hay barn' 2>&1 | grep -v deprecated || true
  lpadmin -h "$S" -d Orchard_Laser
  printf 'Harvest list\nBramley 40 crates\nCox 25 crates\n' > "$CU_DIR/harvest.txt"
  for t in 'Harvest list' 'Pruning rota' 'Cider labels' 'Invoice 2231'; do lp -h "$S" -d Orchard_Laser -t "$t" -H indefinite "$CU_DIR/harvest.txt" >/dev/null; done
  lp -h "$S" -d Greenhouse_Label -t 'Seed tray labels' -H indefinite "$CU_DIR/harvest.txt" >/dev/null
  lpstat -h "$S" -o
  kill "$CUPSD"; wait "$CUPSD" || true
  rm -f "$SEED/cups.sock" "$SEED/cupsd.conf" "$SEED/cups-files.conf" "$SEED"/log/*
  touch "$CU_DIR/.seeded"
fi

# ---- hledger-web 1.25 (Debian's hledger-web: the web UI of a plain-text double-entry accounting
# journal, a Haskell/Yesod app. Server-rendered pages: the journal, an account's register reached by
# a search query `q=inacct:<account>`, and an "add a transaction" form in a modal whose postings are
# repeated `account`/`amount` fields, guarded by a `_token` tied to the session cookie). No sign-in.
# Each start serves a fresh copy of the seeded journal (several accounts, two currencies).
HL_DIR=/var/lib/cs-acceptance/hledger
if [ ! -f "$HL_DIR/.seeded" ]; then
  rm -rf "$HL_DIR" && mkdir -p "$HL_DIR"
  cat > "$HL_DIR/ledger.journal" <<'JOURNAL'
; The orchard's books (acceptance seed).
account assets:bank:checking
account assets:bank:savings
account assets:cash
account expenses:food
account expenses:rent
account expenses:tools
account expenses:fuel
account income:salary
account income:cider
account liabilities:card

2026-11-01 Orchard Co-op payroll
    assets:bank:checking      2400.00 EUR
    income:salary

2026-11-02 Rent November
    expenses:rent              900.00 EUR
    assets:bank:checking

2026-11-05 Farmers market
    expenses:food               42.50 EUR
    assets:cash

2026-11-07 Cider sales at the gate
    assets:cash                180.00 EUR
    income:cider

2026-11-09 Pruning saw and loppers
    expenses:tools              64.90 EUR
    liabilities:card

2026-11-12 Tractor diesel
    expenses:fuel               75.20 EUR
    assets:bank:checking

2026-11-15 Savings transfer
    assets:bank:savings        500.00 EUR
    assets:bank:checking

2026-11-18 Bakery and cheese
    expenses:food               23.80 EUR
    assets:cash

2026-11-20 Cider sales to the pub
    assets:bank:checking       320.00 EUR
    income:cider

2026-11-21 Grafting knife from Swiss supplier
    expenses:tools              45.00 CHF
    liabilities:card
JOURNAL
  cat > "$HL_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: hledger-web on PORT over a fresh copy of the seeded journal (view, add, manage).
set -e
RUN=/tmp/cs-hledger-run-$1
rm -rf "$RUN" && mkdir -p "$RUN" && cp /var/lib/cs-acceptance/hledger/ledger.journal "$RUN/"
exec hledger-web --serve --host 127.0.0.1 --port "$1" --file "$RUN/ledger.journal" --capabilities=view,add,manage
SERVE
  chmod +x "$HL_DIR/serve.sh"
  touch "$HL_DIR/.seeded"
fi

# ---- HAProxy 2.6 (Debian's haproxy: the load balancer's own statistics page, served by HAProxy
# itself — one table per proxy, a header of two rows (column groups spanning the columns they name,
# a rowspan corner), hover tooltips hidden by the page's stylesheet, and an admin form under each
# backend that posts the checked servers and an action and redirects to a status code). HTTP Basic
# auth. Each start is a fresh process (server states live in memory) with backends of its own; no
# health checks and no frontend, so nothing listens or connects beyond the stats port.
HP_DIR=/var/lib/cs-acceptance/haproxy
if [ ! -f "$HP_DIR/.seeded" ]; then
  rm -rf "$HP_DIR" && mkdir -p "$HP_DIR"
  cat > "$HP_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: HAProxy with its statistics page (admin enabled) on PORT, backends be_shop and be_api.
set -e
RUN=/tmp/cs-haproxy-run-$1
rm -rf "$RUN" && mkdir -p "$RUN"
cat > "$RUN/haproxy.cfg" <<CONF
global
    maxconn 100
defaults
    mode http
    timeout connect 2s
    timeout client 10s
    timeout server 10s
backend be_shop
    balance roundrobin
    server shop-a 127.0.0.1:9 weight 10
    server shop-b 127.0.0.1:9 weight 20
    server shop-c 127.0.0.1:9 weight 30
backend be_api
    server api-1 127.0.0.1:9
    server api-2 127.0.0.1:9 backup
listen stats
    bind 127.0.0.1:$1
    stats enable
    stats uri /
    stats refresh 0
    stats auth admin:hap-admin-pass-1
    stats admin if TRUE
CONF
exec haproxy -f "$RUN/haproxy.cfg" -db
SERVE
  chmod +x "$HP_DIR/serve.sh"
  touch "$HP_DIR/.seeded"
fi

# ---- Supervisor 4.2 (Debian's supervisor: supervisord's own web interface, served by its Medusa
# server — a table of processes whose last column is a list of action links (GET requests that act,
# then answer with a 301 to the status page carrying the outcome as a `message` parameter), links
# hidden by its external stylesheet, and a tail page per process that opens in a new window).
# HTTP Basic auth. Each start is a fresh supervisord (process states live in memory) with programs
# that only sleep or print a line: nothing listens or connects beyond the test's port.
SV_DIR=/var/lib/cs-acceptance/supervisor
if [ ! -f "$SV_DIR/.seeded" ]; then
  rm -rf "$SV_DIR" && mkdir -p "$SV_DIR"
  cat > "$SV_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: supervisord in the foreground, its web interface on PORT, six programs.
set -e
RUN=/tmp/cs-supervisor-run-$1
rm -rf "$RUN" && mkdir -p "$RUN"
cat > "$RUN/supervisord.conf" <<CONF
[supervisord]
nodaemon=true
logfile=$RUN/supervisord.log
pidfile=$RUN/supervisord.pid
childlogdir=$RUN
[inet_http_server]
port=127.0.0.1:$1
username=ops
password=sv-ops-pass-1
[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface
[program:web-a]
command=/bin/sleep 1000000
startsecs=0
[program:web-b]
command=/bin/sleep 1000000
startsecs=0
[group:webs]
programs=web-a,web-b
[program:worker]
command=/bin/sh -c "echo 'worker started: 4 threads on queue default'; exec sleep 1000000"
startsecs=0
[program:mailer]
command=/bin/sh -c "echo 'mailer ready: relay localhost, 12 messages waiting'; exec sleep 1000000"
startsecs=0
[program:backup]
command=/bin/sleep 1000000
startsecs=0
autostart=false
[program:reindex]
command=/bin/sleep 1000000
startsecs=0
autostart=false
CONF
exec supervisord -c "$RUN/supervisord.conf"
SERVE
  chmod +x "$SV_DIR/serve.sh"
  touch "$SV_DIR/.seeded"
fi

# ---- gitweb (git's own CGI repository browser, Debian's git: /usr/share/gitweb), served by Apache's
# mod_cgi. Pages of tables without header rows (a project's log, search hits, a directory), each
# row ending in a column of "commit | commitdiff | tree" links; addresses whose parameters are
# separated by `;` (`?p=atlas.git;a=commit;h=…`); a log paged 100 commits at a time by "next"
# links; commits read as label/value rows. Three bare repositories with fixed authors and dates
# (the same commit ids on every machine), read-only: each start serves them as they are.
GW_DIR=/var/lib/cs-acceptance/gitweb
if [ ! -f "$GW_DIR/.seeded" ]; then
  rm -rf "$GW_DIR" && mkdir -p "$GW_DIR/repos"
  gw_seed() { # gw_seed NAME DESCRIPTION OWNER COMMITS
    local name=$1 work
    work=$(mktemp -d)
    git -C "$work" init -q -b main
    local areas=(tiles render cache api cli docs tests build projection styles)
    local verbs=(add fix speed\ up simplify document rework guard tidy)
    local things=("zoom levels" "the tile index" "empty layers" "retina scaling" "the config loader" "labels at the antimeridian" "vector sources" "the disk budget" "slow requests" "error messages")
    local people=("Dana Reyes:dana@example.test" "Lee Park:lee@example.test" "Sam Okafor:sam@example.test" "Ivy Chen:ivy@example.test")
    mkdir -p "$work/src/render" "$work/docs"
    local i area thing person when
    for i in $(seq 1 "$4"); do
      area=${areas[$(( (i * 7) % ${#areas[@]} ))]}
      thing=${things[$(( (i * 3 + i / 7) % ${#things[@]} ))]}
      person=${people[$(( (i * 3 + ${#name}) % ${#people[@]} ))]}
      when=$(( 1767225600 + i * 86400 + (i * 3571) % 40000 ))
      case $(( i % 4 )) in
        0) echo "$area change $i" >> "$work/src/$area.c" ;;
        1) echo "note $i about $area" >> "$work/docs/$area.md" ;;
        2) echo "render step $i" >> "$work/src/render/pass$(( i % 3 )).c" ;;
        3) echo "$name $i" >> "$work/README" ;;
      esac
      git -C "$work" add -A
      GIT_AUTHOR_NAME=${person%%:*} GIT_AUTHOR_EMAIL=${person#*:} GIT_COMMITTER_NAME="Dana Reyes" GIT_COMMITTER_EMAIL=dana@example.test \
        GIT_AUTHOR_DATE="@$when +0000" GIT_COMMITTER_DATE="@$(( when + 600 )) +0000" \
        git -C "$work" commit -q -m "$area: ${verbs[$(( (i * 5) % ${#verbs[@]} ))]} $thing" -m "Change $i of $name: $area work on $thing."
      if [ $(( i % 40 )) -eq 0 ]; then GIT_COMMITTER_NAME="Dana Reyes" GIT_COMMITTER_EMAIL=dana@example.test GIT_COMMITTER_DATE="@$(( when + 700 )) +0000" git -C "$work" tag -a "v0.$(( i / 40 ))" -m "Release 0.$(( i / 40 ))"; fi
    done
    git clone -q --bare "$work" "$GW_DIR/repos/$name.git"
    rm -rf "$work"
    echo "$2" > "$GW_DIR/repos/$name.git/description"
    git -C "$GW_DIR/repos/$name.git" config gitweb.owner "$3"
  }
  gw_seed atlas "Mapping toolkit that renders and caches map tiles" "Dana Reyes" 130
  gw_seed beacon "Uptime beacon agent with a tiny status API" "Lee Park" 25
  gw_seed cobalt "Static site theme with dark styles" "Sam Okafor" 9
  cat > "$GW_DIR/gitweb.conf" <<'CONF'
# The acceptance suite's gitweb (scripts/acceptance-setup.sh).
$projectroot = "/var/lib/cs-acceptance/gitweb/repos";
$site_name = "Acme code";
$home_link_str = "projects";
@stylesheets = ("static/gitweb.css");
$javascript = "static/gitweb.js";
$logo = "static/git-logo.png";
$favicon = "static/git-favicon.png";
$feature{'pickaxe'}{'default'} = [1];
$feature{'highlight'}{'default'} = [0];
CONF
  chown -R www-data:www-data "$GW_DIR/repos"
  cat > "$GW_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: Apache in the foreground serving gitweb.cgi at / on PORT (lib/cgi-httpd.sh).
exec /var/lib/cs-acceptance/lib/cgi-httpd.sh "$1" gitweb <<'CONF'
SetEnv GITWEB_CONFIG /var/lib/cs-acceptance/gitweb/gitweb.conf
DocumentRoot /usr/share/gitweb
<Directory /usr/share/gitweb>
  Options +ExecCGI
  AddHandler cgi-script .cgi
  DirectoryIndex gitweb.cgi
  Require all granted
</Directory>
CONF
SERVE
  chmod +x "$GW_DIR/serve.sh"
  touch "$GW_DIR/.seeded"
fi

# ---- cgit 1.2 (Debian's cgit: a fast CGI repository browser in C, served by Apache's mod_cgi) over
# the same three repositories as gitweb above — the same data in other markup: headed tables
# (`table.list`), addresses as paths (`/atlas.git/log/?ofs=50`), a log paged 50 commits at a time,
# a commit's header as a table of <th> labels, and a search form in the page's tab bar.
CG_DIR=/var/lib/cs-acceptance/cgit
if [ ! -f "$CG_DIR/.seeded" ]; then
  rm -rf "$CG_DIR" && mkdir -p "$CG_DIR"
  cat > "$CG_DIR/cgitrc" <<'CONF'
# The acceptance suite's cgit (scripts/acceptance-setup.sh): gitweb's repositories, no cache.
css=/cgit-css/cgit.css
logo=/cgit-css/cgit.png
favicon=/cgit-css/favicon.ico
virtual-root=/
root-title=Acme code
root-desc=Mapping, monitoring and theming projects
enable-index-owner=1
enable-git-config=1
enable-commit-graph=0
enable-log-filecount=1
enable-log-linecount=1
max-commit-count=50
cache-size=0
snapshots=tar.gz
remove-suffix=0
scan-path=/var/lib/cs-acceptance/gitweb/repos
CONF
  cat > "$CG_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: Apache in the foreground serving cgit.cgi for every path on PORT but its
# stylesheet (lib/cgi-httpd.sh).
exec /var/lib/cs-acceptance/lib/cgi-httpd.sh "$1" cgit <<'CONF'
SetEnv CGIT_CONFIG /var/lib/cs-acceptance/cgit/cgitrc
Alias /cgit-css /usr/share/cgit
ScriptAliasMatch "^/(?!cgit-css)(.*)$" /usr/lib/cgit/cgit.cgi/$1
<Directory /usr/share/cgit>
  Require all granted
</Directory>
<Directory /usr/lib/cgit>
  Require all granted
</Directory>
CONF
SERVE
  chmod +x "$CG_DIR/serve.sh"
  touch "$CG_DIR/.seeded"
fi

# ---- Gitit 0.15 (Debian's gitit: a wiki in Haskell, served by its own Happstack server, whose
# pages are Markdown files in a git repository). Sign-in by a form and a session cookie; a page is
# edited in a form that carries the revision it was read at (`sha1`); search results, a page's
# history, recent activity by author and category pages are lists of links. Seeded: the wiki's
# own first pages, a user `seed`, eight service pages in categories (two commits each, by three
# authors with fixed dates) and an on-call rota of thirty revisions. Each start serves a fresh copy.
GT_DIR=/var/lib/cs-acceptance/gitit
if [ ! -f "$GT_DIR/.seeded" ]; then
  rm -rf "$GT_DIR" && mkdir -p "$GT_DIR/seed"
  gitit --print-default-config | sed -e 's/^address: .*/address: 127.0.0.1/' -e 's/^math: .*/math: raw/' \
    -e 's/^wiki-title: .*/wiki-title: Runbook Wiki/' -e 's/^recent-activity-days: .*/recent-activity-days: 10000/' \
    -e 's/^compress-responses: .*/compress-responses: no/' > "$GT_DIR/seed/gitit.conf"
  # (The first start writes the repository, its first pages, static files and templates.)
  (cd "$GT_DIR/seed" && exec gitit -f gitit.conf -p 9021) & GT_PID=$!
  for _ in $(seq 1 100); do curl -sf -o /dev/null http://127.0.0.1:9021/_login && break; sleep 0.2; done
  curl -sf -o /dev/null -X POST http://127.0.0.1:9021/_register --data-urlencode username=seed \
    --data-urlencode email=seed@example.org --data-urlencode full_name_1= --data-urlencode password=gt-seed-pass-1 \
    --data-urlencode password2=gt-seed-pass-1 --data-urlencode destination= --data-urlencode register=Register
  kill $GT_PID; wait $GT_PID 2>/dev/null || true
  grep -q '"seed"' "$GT_DIR/seed/gitit-users"
  cd "$GT_DIR/seed/wikidata"
  n=0
  gtcommit() { # AUTHOR EMAIL MESSAGE: a commit dated by its number, the same on every machine
    n=$((n + 1))
    local d="2025-03-$(printf %02d $((1 + n % 27))) $(printf %02d $((8 + n % 10))):$(printf %02d $((n * 7 % 60))):00 +0000"
    GIT_AUTHOR_NAME="$1" GIT_AUTHOR_EMAIL="$2" GIT_COMMITTER_NAME="$1" GIT_COMMITTER_EMAIL="$2" \
      GIT_AUTHOR_DATE="$d" GIT_COMMITTER_DATE="$d" git commit -q -m "$3"
  }
  authors=("Ada Moreno:ada@example.org" "Bo Lindqvist:bo@example.org" "Chidi Okafor:chidi@example.org")
  i=0
  for s in "Billing:payments:charges cards and sends invoices" "Search:indexing:indexes the catalogue every night" \
    "Gateway:routing:routes every public request" "Mailer:notifications:sends receipts and password resets" \
    "Ledger:payments:keeps the double-entry accounts" "Thumbnails:media:resizes uploaded images" \
    "Scheduler:jobs:runs the recurring jobs" "Reports:analytics:builds the weekly revenue report"; do
    IFS=: read -r name team what <<<"$s"
    a=${authors[$((i % 3))]} b=${authors[$(((i + 1) % 3))]}
    printf -- '---\ncategories: Service, %s\n...\n\n%s %s. It belongs to the %s team.\n\n## Owners\n\nThe %s team is on call for %s during working hours.\n\n## Runbook\n\nRestart %s with `systemctl restart %s` and check its dashboard.\n' \
      "${team^}" "$name" "$what" "$team" "$team" "$name" "$name" "${name,,}" > "$name.page"
    git add "$name.page" && gtcommit "${a%%:*}" "${a##*:}" "Create $name"
    printf '\n## Alerts\n\nPage the %s on-call when %s has failed twice in ten minutes.\n' "$team" "$name" >> "$name.page"
    git add "$name.page" && gtcommit "${b%%:*}" "${b##*:}" "Alert rule for $name"
    i=$((i + 1))
  done
  printf -- '---\ncategories: Process\n...\n\nWho is on call, week by week.\n\n' > Rota.page
  for k in $(seq 1 30); do
    a=${authors[$((k % 3))]} b=${authors[$(((k + 1) % 3))]}
    printf -- '- Week %s: %s, then %s\n' "$k" "${a%%:*}" "${b%%:*}" >> Rota.page
    git add Rota.page && gtcommit "${a%%:*}" "${a##*:}" "Rota: week $k"
  done
  cd - >/dev/null
  cat > "$GT_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: gitit on PORT over a fresh copy of the seeded wiki (its repository, users, templates).
set -e
RUN=/tmp/cs-gitit-run-$1
rm -rf "$RUN" && cp -a /var/lib/cs-acceptance/gitit/seed "$RUN" && cd "$RUN"
exec gitit -f gitit.conf -p "$1" -l 127.0.0.1
SERVE
  chmod +x "$GT_DIR/serve.sh"
  touch "$GT_DIR/.seeded"
fi

# ---- ikiwiki 3.2020 (Debian's ikiwiki: a wiki compiler in Perl: Markdown pages in a git repository
# compiled to static HTML, with one CGI (ikiwiki.cgi) for signing in, editing, comments and search
# through Xapian's omega). Its pages carry the addresses they were built for, so serve.sh PORT
# builds a fresh copy of the seed for its port, then serves the pages and the CGI with Apache.
IK_DIR=/var/lib/cs-acceptance/ikiwiki
if [ ! -f "$IK_DIR/.seeded" ]; then
  rm -rf "$IK_DIR" && mkdir -p "$IK_DIR/seed/src"
S=$IK_DIR/seed/src
cd "$S"
git init -q -b master .
git config user.name "Seed"; git config user.email seed@example.test
commit() { # commit AUTHOR DATE MESSAGE
  git add -A
  GIT_AUTHOR_NAME="$1" GIT_AUTHOR_EMAIL="$(echo "$1" | tr 'A-Z ' 'a-z.')@example.test" GIT_AUTHOR_DATE="$2" \
  GIT_COMMITTER_NAME="$1" GIT_COMMITTER_EMAIL="$(echo "$1" | tr 'A-Z ' 'a-z.')@example.test" GIT_COMMITTER_DATE="$2" \
    git commit -q -m "$3"
}
cat > index.mdwn <<'P'
Welcome to the **Northwind field office** handbook. Everything here is written by the people who keep the office running.

* [[How-to guides|howto]]
* [[News]]
* [[Tags|tags]]
P
cat > howto.mdwn <<'P'
Step-by-step guides for the office's equipment and services.

[[!map pages="howto/*"]]

Guides still to write: [[parking]], [[keys]].
P
cat > news.mdwn <<'P'
What changed in the office lately.

[[!inline pages="posts/* and !*/Discussion" show=20 archive=no]]
P
cat > tags.mdwn <<'P'
[[!pagestats pages="tags/*"]]
P
commit "Ada Moreno" "2026-03-01T09:00:00Z" "Start the handbook"
mkdir -p howto posts
page() { # page NAME TAGS TEXT...
  local name=$1 title=$2 tags=$3; shift 3
  { printf '[[!meta title="%s"]]\n\n' "$title"; printf '%s\n' "$@"; echo; for t in $tags; do printf '[[!tag %s]]\n' "$t"; done; } > "howto/$name.mdwn"
}
page vpn "Connect to the VPN" "network security" "Connect to the office VPN before opening any internal dashboard." "" "1. Install the WireGuard client from the software portal." "2. Import the profile the service desk mailed you." "3. Turn the tunnel on; the status light goes green within ten seconds." "" "If the tunnel drops every few minutes, ask the network team to renew your key."
commit "Ada Moreno" "2026-03-02T10:00:00Z" "Add the VPN guide"
page printing "Print on Heron" "hardware" "Print to the second-floor printer, named Heron." "" "1. Add the printer from the system settings; it announces itself on the office network." "2. Choose duplex by default to save paper." "" "Heron jams on card stock: use the tray by the window instead."
commit "Chidi Okafor" "2026-03-03T11:00:00Z" "Add the printing guide"
page wifi "Join the wireless network" "network" "The office wireless network is called Northwind-Staff." "" "Sign in with your directory account. Guests use Northwind-Guest, whose password changes every Monday and is posted at reception." "" "Meeting rooms have their own access points: if the signal is weak, move closer to the door."
commit "Ada Moreno" "2026-03-04T12:00:00Z" "Add the wireless guide"
page backups "Back up a laptop" "storage security" "Laptops are backed up every night at one o'clock when they are plugged in." "" "1. Leave the laptop on its dock overnight at least twice a week." "2. Check the backup icon: a green tick means last night's copy finished." "" "To restore a file, open a ticket with the file's name and the day you last saw it."
commit "Bea Lindqvist" "2026-03-05T13:00:00Z" "Add the backups guide"
page email "Read your mail" "network" "Mail is read in the browser or in any client that speaks IMAP." "" "The server is mail.northwind.test, port 993, with your directory account." "" "Shared mailboxes such as facilities appear on their own after a day."
commit "Chidi Okafor" "2026-03-06T14:00:00Z" "Add the mail guide"
page passwords "Change your password" "security" "Directory passwords expire every ninety days." "" "1. Change yours from the self-service page before it expires." "2. Use a passphrase of at least four words." "" "Never share a password by mail; the service desk will never ask for one."
commit "Bea Lindqvist" "2026-03-07T15:00:00Z" "Add the passwords guide"
page laptops "Get a new laptop" "hardware" "New laptops are handed out on Tuesdays by the service desk." "" "Bring the old laptop and its charger; its disk is wiped in front of you." "" "Loan laptops for visitors are kept in the cupboard behind reception."
commit "Ada Moreno" "2026-03-08T16:00:00Z" "Add the laptops guide"
page badges "Door badges" "hardware security" "Door badges open the building from seven to nine." "" "A lost badge is blocked as soon as reception hears of it; a new one takes a day." "" "Visitors sign in at reception and wear a paper badge."
commit "Chidi Okafor" "2026-03-09T17:00:00Z" "Add the badges guide"
# Second revisions
sed -i 's/within ten seconds/within ten seconds; it can take a minute on hotel networks/' howto/vpn.mdwn
commit "Chidi Okafor" "2026-03-10T09:30:00Z" "VPN: hotel networks are slower"
sed -i 's/to save paper\./to save paper. Colour printing needs a code from reception./' howto/printing.mdwn
commit "Bea Lindqvist" "2026-03-11T09:30:00Z" "Printing: colour needs a code"
post() { # post SLUG DATE AUTHOR TITLE TEXT
  printf '[[!meta title="%s"]]\n[[!meta date="%s"]]\n[[!meta author="%s"]]\n\n%s\n' "$4" "$2" "$3" "$5" > "posts/$1.mdwn"
  commit "$3" "$2" "Post: $4"
}
post kitchen-reopens "2026-04-01 09:00:00" "Bea Lindqvist" "The kitchen reopens" "The second-floor kitchen reopens on Monday with a new coffee machine and a second fridge."
post new-printer "2026-04-08 09:00:00" "Chidi Okafor" "A new printer on the third floor" "Kestrel, a colour printer, now stands by the lifts on the third floor. Add it like Heron."
post fire-drill "2026-04-15 09:00:00" "Ada Moreno" "Fire drill on Thursday" "The yearly fire drill is on Thursday at eleven. Leave by the nearest stairs and gather in the car park."
post network-maintenance "2026-04-22 09:00:00" "Chidi Okafor" "Network maintenance on Saturday" "The office network is down on Saturday from eight to noon while the switches are replaced."
post bike-racks "2026-04-29 09:00:00" "Bea Lindqvist" "More bike racks" "Twelve new bike racks are in the courtyard, next to the side entrance."
# Comments on posts (the comments plugin's own file format)
comment() { # comment POST N AUTHOR DATE SUBJECT TEXT
  mkdir -p "posts/$1"
  printf '[[!comment format=mdwn\n username="%s"\n subject="%s"\n date="%s"\n content="""\n%s\n"""]]\n' "$3" "$5" "$4" "$6" > "posts/$1/comment_$2_seed._comment"
}
comment kitchen-reopens 1 "ada" "2026-04-01T10:00:00Z" "Tea?" "Does the new machine make tea as well?"
comment kitchen-reopens 2 "chidi" "2026-04-01T11:00:00Z" "Hot water" "It has a hot water tap, so yes."
comment kitchen-reopens 3 "bea" "2026-04-01T12:00:00Z" "Labels" "Please label what you leave in the fridges."
comment fire-drill 1 "chidi" "2026-04-15T12:00:00Z" "Lifts" "The lifts are switched off during the drill."
comment fire-drill 2 "bea" "2026-04-15T13:00:00Z" "Vests" "Wardens wear the yellow vests."
commit "Seed" "2026-04-30T09:00:00Z" "Comments"
mkdir -p tags
for t in network security hardware storage; do
  printf '[[!meta title="pages tagged %s"]]\n\n[[!inline pages="tagged(%s)" actions="no" archive="yes"\nfeedshow=10]]\n' "$t" "$t" > "tags/$t.mdwn"
done
commit "Ada Moreno" "2026-04-30T10:00:00Z" "Tag pages"
  cd - >/dev/null
  cat > "$IK_DIR/seed/wiki.setup.in" <<'SETUP'
# IkiWiki::Setup::Yaml - YAML formatted setup file
wikiname: Northwind Handbook
adminuser:
- seed
adminemail: seed@example.test
srcdir: @RUN@/src
destdir: @RUN@/public
url: http://127.0.0.1:@PORT@
cgiurl: http://127.0.0.1:@PORT@/ikiwiki.cgi
cgi_wrapper: @RUN@/ikiwiki.cgi
cgi_wrappermode: '0755'
add_plugins:
- goodstuff
- search
- comments
- tag
- sidebar
- remove
- rename
disable_plugins:
- openid
- emailauth
- smiley
- fortune
rcs: git
gitorigin_branch: ''
git_wrapper: ''
usedirs: 1
indexpages: 0
discussion: 0
timeformat: '%Y-%m-%d %H:%M'
locale: ''
tagbase: tags
tag_autocreate: 1
tag_autocreate_commit: 1
comments_pagespec: posts/* and !*/Discussion
comments_closed_pagespec: ''
comments_allowauthor: 0
comments_commit: 1
moderate_pagespec: '!*'
omega_cgi: /usr/lib/cgi-bin/omega/omega
recentchangespage: recentchanges
recentchangesnum: 100
verbose: 0
syslog: 0
SETUP
  cat > "$IK_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: the seeded wiki built for PORT in its own directory (its repository, users and
# sessions fresh per start), its pages and CGI served by Apache on PORT.
set -e
SEED=/var/lib/cs-acceptance/ikiwiki/seed
RUN=/tmp/cs-ikiwiki-run-$1
rm -rf "$RUN" && mkdir -p "$RUN"
cp -a "$SEED/src" "$RUN/src"
sed -e "s#@RUN@#$RUN#g" -e "s#@PORT@#$1#g" "$SEED/wiki.setup.in" > "$RUN/wiki.setup"
if [ -f "$SEED/userdb" ]; then mkdir -p "$RUN/src/.ikiwiki" && cp "$SEED/userdb" "$RUN/src/.ikiwiki/userdb"; fi
ikiwiki --setup "$RUN/wiki.setup" --gettime >/dev/null
chown -R www-data:www-data "$RUN"
exec /var/lib/cs-acceptance/lib/cgi-httpd.sh "$1" ikiwiki <<CONF
DocumentRoot $RUN/public
DirectoryIndex index.html
ScriptAlias /ikiwiki.cgi $RUN/ikiwiki.cgi
<Directory $RUN>
  Require all granted
</Directory>
CONF
SERVE
  chmod +x "$IK_DIR/serve.sh"
  # (The user `seed` registers through the wiki's own form: its password is kept as the wiki keeps it.)
  setsid sh "$IK_DIR/serve.sh" 9023 >/dev/null 2>&1 & IK_PID=$!
  for _ in $(seq 1 100); do curl -sf -o /dev/null http://127.0.0.1:9023/ && break; sleep 0.2; done
  curl -sf -o /dev/null http://127.0.0.1:9023/ikiwiki.cgi --data-urlencode _submitted_signin=1 --data-urlencode do=signin \
    --data-urlencode name=seed --data-urlencode password=ik-seed-pass-1 --data-urlencode confirm_password=ik-seed-pass-1 \
    --data-urlencode email=seed@example.test --data-urlencode '_submit=Create Account'
  cp /tmp/cs-ikiwiki-run-9023/src/.ikiwiki/userdb "$IK_DIR/seed/userdb"
  kill -TERM -- -$IK_PID 2>/dev/null || true; wait $IK_PID 2>/dev/null || true
  rm -rf /tmp/cs-ikiwiki-run-9023
  touch "$IK_DIR/.seeded"
fi

# One lifecycle for the apps over our own directory (LDAP Account Manager, phpLDAPadmin): their
# serve.sh sources ldap-run.sh, then `seed_slapd RUN` loads the seed LDIF (LM_DIR/seed, below) into a
# fresh directory in RUN and starts its slapd on the socket RUN/ldapi (SOCK: its URL-encoded path,
# LDAP: its pid); `serve_php PORT DOCROOT` serves the app until stopped (its log in RUN/php.log),
# stopping slapd with it.
# Written on every run.
cat > /var/lib/cs-acceptance/lib/ldap-run.sh <<'LIB'
seed_slapd() {
  SEED=/var/lib/cs-acceptance/lam/seed
  RUN=$1
  rm -rf "$1" && mkdir -p "$1/db"
  sed "s#@RUN@#$1#g" "$SEED/slapd.conf.in" > "$1/slapd.conf"
  slapadd -q -f "$1/slapd.conf" -l "$SEED/seed.ldif"
  SOCK=$(printf '%s' "$1/ldapi" | sed 's#/#%2F#g')
  slapd -f "$1/slapd.conf" -h "ldapi://$SOCK" -d 0 >"$1/slapd.log" 2>&1 &
  LDAP=$!
  for _ in $(seq 1 50); do [ -S "$1/ldapi" ] && break; sleep 0.1; done
}
serve_php() {
  # (Its log stays in the run directory. phpLDAPadmin 1.2.6 on PHP 8 answers a sign-in HTTP 500
  # about one time in 250: it splits its stored password `cipher::iv::tag` on '::', and a random IV
  # ending in ':' comes back a byte short; openssl warns and its error handler dies.)
  php -S "127.0.0.1:$1" -t "$2" 2>"$RUN/php.log" &
  WEB=$!
  trap 'kill $WEB $LDAP 2>/dev/null || true; wait $WEB $LDAP 2>/dev/null || true; exit 0' INT TERM
  wait $WEB
}
LIB

# ---- LDAP Account Manager 8.3 (Debian's ldap-account-manager: PHP pages over an OpenLDAP
# directory; every form carries the session's `sec_token`, the account being edited lives in the
# PHP session between its tabs). The directory is our own slapd per start (serve.sh), on a Unix
# socket in its run directory, loaded from the seed LDIF (twelve people in four teams, their
# posix groups); LAM's one server profile (lam.conf) is pointed at that socket by serve.sh.
LM_DIR=/var/lib/cs-acceptance/lam
if [ ! -f "$LM_DIR/.seeded" ]; then
  rm -rf "$LM_DIR" && mkdir -p "$LM_DIR/seed"
  python3 - "$LM_DIR/seed/seed.ldif" <<'PY'
import sys
people = [("ada", "Ada", "Moreno", "Engineering"), ("bea", "Bea", "Lindqvist", "Facilities"), ("chidi", "Chidi", "Okafor", "Engineering"),
          ("dara", "Dara", "Kim", "Finance"), ("eli", "Eli", "Novak", "Engineering"), ("fatima", "Fatima", "Haddad", "Finance"),
          ("gus", "Gus", "Ferreira", "Facilities"), ("hana", "Hana", "Sato", "Support"), ("ivan", "Ivan", "Petrov", "Support"),
          ("jo", "Jo", "Mensah", "Engineering"), ("kai", "Kai", "Laine", "Support"), ("lena", "Lena", "Vogel", "Finance")]
groups = {"engineering": 10001, "finance": 10002, "facilities": 10003, "support": 10004}
out = ["dn: dc=northwind,dc=test", "objectClass: top", "objectClass: dcObject", "objectClass: organization", "o: Northwind", "dc: northwind", "",
       "dn: ou=People,dc=northwind,dc=test", "objectClass: organizationalUnit", "ou: People", "",
       "dn: ou=group,dc=northwind,dc=test", "objectClass: organizationalUnit", "ou: group", ""]
for i, (u, g, s, team) in enumerate(people):
    out += [f"dn: uid={u},ou=People,dc=northwind,dc=test", "objectClass: inetOrgPerson", "objectClass: posixAccount", "objectClass: shadowAccount",
            f"uid: {u}", f"cn: {g} {s}", f"givenName: {g}", f"sn: {s}", f"mail: {u}@northwind.test", f"telephoneNumber: +44 20 7946 {101 + i:04d}",
            f"title: {team} staff", f"uidNumber: {10001 + i}", f"gidNumber: {groups[team.lower()]}", f"homeDirectory: /home/{u}", "loginShell: /bin/bash", ""]
for name, gid in groups.items():
    out += [f"dn: cn={name},ou=group,dc=northwind,dc=test", "objectClass: posixGroup", f"cn: {name}", f"gidNumber: {gid}", f"description: The {name} team"]
    out += [f"memberUid: {u}" for (u, g, s, team) in people if team.lower() == name] + [""]
open(sys.argv[1], "w").write("\n".join(out))
PY
  cat > "$LM_DIR/seed/slapd.conf.in" <<CONF
# The acceptance suite's directory (scripts/acceptance-setup.sh): serve.sh fills in @RUN@.
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/nis.schema
include /etc/ldap/schema/inetorgperson.schema
pidfile @RUN@/slapd.pid
modulepath /usr/lib/ldap
moduleload back_mdb
database mdb
maxsize 104857600
suffix "dc=northwind,dc=test"
rootdn "cn=admin,dc=northwind,dc=test"
rootpw $(slappasswd -s lm-admin-pass-1 -h '{SSHA}')
directory @RUN@/db
index objectClass eq
index uid eq
CONF
  # (LAM's own sample profile, for our directory: its admin, its suffixes, US English.)
  sed -e 's/^Admins: .*/Admins: cn=admin,dc=northwind,dc=test/' -e 's/dc=my-domain,dc=com/dc=northwind,dc=test/g' \
    -e 's/^tools: treeViewSuffix: .*/tools: treeViewSuffix: dc=northwind,dc=test/' -e 's/^defaultLanguage: .*/defaultLanguage: en_US.utf8/' \
    /var/lib/ldap-account-manager/config/unix.sample.conf > "$LM_DIR/seed/lam.conf"
  grep -q 'Admins: cn=admin,dc=northwind,dc=test' "$LM_DIR/seed/lam.conf"
  cat > "$LM_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: a fresh directory from the seed LDIF, its slapd on a Unix socket in the run
# directory, LAM's profile pointed at it, and LAM served by `php -S` on PORT.
set -e
. /var/lib/cs-acceptance/lib/ldap-run.sh
seed_slapd "/tmp/cs-lam-run-$1"
sed -e "s#^ServerURL: .*#ServerURL: ldapi://$SOCK#" "$SEED/lam.conf" > /var/lib/ldap-account-manager/config/lam.conf
serve_php "$1" /usr/share/ldap-account-manager
SERVE
  chmod +x "$LM_DIR/serve.sh"
  touch "$LM_DIR/.seeded"
fi

# ---- phpLDAPadmin 1.2.6 (Debian's phpldapadmin: a generic LDAP browser and editor in PHP). Its
# directory is LAM's seed (twelve people in four teams) in a slapd of its own per start, on a Unix
# socket in the run directory; its one config (/etc/phpldapadmin/config.php) is written by serve.sh
# for that socket. Entries are addressed by DN in the query string; a change goes through a page
# that confirms it (update_confirm) before the update; new entries from a template.
PL_DIR=/var/lib/cs-acceptance/phpldapadmin
if [ ! -f "$PL_DIR/.seeded" ]; then
  rm -rf "$PL_DIR" && mkdir -p "$PL_DIR"
  cat > "$PL_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: a fresh directory from LAM's seed LDIF, its slapd on a Unix socket in the run
# directory, phpLDAPadmin's config pointed at it, and phpLDAPadmin served by `php -S` on PORT.
set -e
. /var/lib/cs-acceptance/lib/ldap-run.sh
seed_slapd "/tmp/cs-pla-run-$1"
cat > /etc/phpldapadmin/config.php <<PHP
<?php
\$config->custom->appearance['timezone'] = 'UTC';
\$config->custom->appearance['hide_template_warning'] = true;
\$servers = new Datastore();
\$servers->newServer('ldap_pla');
\$servers->setValue('server','name','Northwind');
\$servers->setValue('server','host','ldapi://$SOCK');
\$servers->setValue('server','base',array('dc=northwind,dc=test'));
\$servers->setValue('login','auth_type','session');
\$servers->setValue('login','bind_id','cn=admin,dc=northwind,dc=test');
PHP
serve_php "$1" /usr/share/phpldapadmin/htdocs
SERVE
  chmod +x "$PL_DIR/serve.sh"
  touch "$PL_DIR/.seeded"
fi
# ---- DAViCal 1.1 (Debian's davical: a CalDAV/CardDAV server in PHP over PostgreSQL, with its own
# server-rendered admin pages). Its seed database `davical_seed` comes from its own create-database.sh
# (the roles davical_dba and davical_app, an admin); the seed's people, resources, groups and group
# memberships are made through its own admin forms (multipart posts carrying a csrf_token), each
# principal with its default calendar and address book. Every start makes a fresh copy of the seed
# named by the port (serve.sh); its one config (/etc/davical/config.php) names the database from the
# environment of the `php -S` serving it. What it brings: tables of principals with sortable
# headers, a principal's page that is a form of label/value rows above several tables, forms placed
# inside table rows (the parser moves them out of the table), a delete confirmed by a link carrying a
# one-time token, and a field named `xxxxusername` so browsers do not fill it in.
DV_DIR=/var/lib/cs-acceptance/davical
if [ ! -f "$DV_DIR/.seeded" ]; then
  rm -rf "$DV_DIR" && mkdir -p "$DV_DIR"
  cat > /etc/davical/config.php <<'PHP'
<?php
// The acceptance suite's DAViCal (scripts/acceptance-setup.sh): its database named by the
// environment of the `php -S` serving it (serve.sh), one PostgreSQL database per instance.
$c->pg_connect[] = 'dbname=' . (getenv('DAVICAL_DB') ?: 'davical_seed') . ' host=127.0.0.1 port=5432 user=davical_app';
$c->system_name = 'Orchard calendars';
$c->admin_email = 'admin@orchard.test';
PHP
  psql -q -h 127.0.0.1 -U postgres -d postgres -c "DROP DATABASE IF EXISTS davical_seed"
  (cd /tmp && PGHOST=127.0.0.1 PGUSER=postgres sh /usr/share/davical/dba/create-database.sh davical_seed 'dv-admin-pass-1' >/dev/null)
  DAVICAL_DB=davical_seed php -S 127.0.0.1:8994 -t /usr/share/davical/htdocs >/dev/null 2>&1 &
  DV_PID=$!
  for i in $(seq 1 50); do curl -s -o /dev/null http://127.0.0.1:8994/ && break; sleep 0.2; done
  python3 - <<'PY'
import http.cookiejar, re, urllib.parse, urllib.request, uuid
BASE = 'http://127.0.0.1:8994'
op = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
def get(path): return op.open(BASE + path).read().decode()
def post(path, fields):
  b = uuid.uuid4().hex
  body = b''.join(f'--{b}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode() for k, v in fields) + f'--{b}--\r\n'.encode()
  return op.open(urllib.request.Request(BASE + path, data=body, headers={'Content-Type': f'multipart/form-data; boundary={b}'})).read().decode()
def csrf(page): return re.search(r'name="csrf_token" value="([0-9a-f]+)"', page).group(1)
op.open(BASE + '/', data=urllib.parse.urlencode({'username': 'admin', 'password': 'dv-admin-pass-1', 'submit': 'GO!'}).encode()).read()
ids = {}
def create(username, fullname, type_id):
  token = csrf(get('/admin.php?action=edit&t=principal'))
  post('/admin.php?action=edit&t=principal', [('xxxxusername', username), ('newpass1', f'{username}-pass-1'), ('newpass2', f'{username}-pass-1'),
    ('fullname', fullname), ('email', f'{username}@orchard.test'), ('locale', ''), ('date_format_type', 'E'), ('type_id', type_id),
    ('is_admin', 'off'), ('user_active', 'off'), ('user_active', 'on'), ('default_privileges[fake_privilege_for_input]', '0'),
    ('default_privileges[read-free-busy]', 'on'), ('_editor_action[editor_1]', 'insert'), ('submit', 'Create'), ('csrf_token', token)])
people = [('ada', 'Ada Moreno'), ('ben', 'Ben Okafor'), ('chidi', 'Chidi Obi'), ('dara', 'Dara Kim'), ('elif', 'Elif Demir'),
  ('farah', 'Farah Haddad'), ('gus', 'Gus Lindqvist'), ('hana', 'Hana Sato')]
for u, f in people: create(u, f, '1')
for u, f in [('pressroom', 'Press room'), ('tractor', 'Blue tractor')]: create(u, f, '2')
for u, f in [('pickers', 'Pickers'), ('cellar', 'Cellar team')]: create(u, f, '3')
listing = get('/admin.php?action=browse&t=principal&active=t')
for pid, name in re.findall(r'id=(\d+)">\d+</a></td>\s*<td class="left">([a-z]+)</td>', listing): ids[name] = pid
def join(group, member):
  path = f'/admin.php?action=edit&t=principal&id={ids[group]}'
  post(path, [('csrf_token', csrf(get(path))), ('id', ids[group]), ('member_id', ids[member]), ('_editor_action[editor_2]', 'insert'), ('savegrouprow', 'Add')])
for m in ['ada', 'ben', 'dara']: join('pickers', m)
for m in ['chidi', 'elif']: join('cellar', m)
print('seeded', len(ids), 'principals')
PY
  kill $DV_PID
  wait $DV_PID 2>/dev/null || true
  cat > "$DV_DIR/serve.sh" <<'SERVE'
#!/bin/sh
# serve.sh PORT: DAViCal on PORT over a fresh copy of the seed database (see
# scripts/acceptance-setup.sh); the copy is dropped when the test stops this script.
exec /var/lib/cs-acceptance/lib/pg-copy.sh davical_seed "davical_run_$1" \
  env DAVICAL_DB="davical_run_$1" php -S "127.0.0.1:$1" -t /usr/share/davical/htdocs
SERVE
  chmod +x "$DV_DIR/serve.sh"
  touch "$DV_DIR/.seeded"
fi
echo "acceptance apps ready: dokuwiki (/usr/share/dokuwiki), phpmyadmin (/usr/share/phpmyadmin), mariadb db acme, adminer (/usr/share/adminer, mariadb db orchard), mediawiki (/var/lib/mediawiki, sqlite $MWDB), wordpress (/usr/share/wordpress, mariadb db wordpress), fossil ($FSL_DIR/repo.fossil), redmine (/usr/share/redmine, sqlite), django admin ($DJ_DIR), directus ($DX_DIR, postgresql db directus_acc), request tracker 5 (/usr/share/request-tracker5, sqlite), ghost ($GH_DIR, sqlite), transmission ($TR_DIR), jupyter ($JN_DIR), qbittorrent ($QB_DIR), verdaccio ($VD_DIR), radicale ($RD_DIR), rabbitmq ($RQ_DIR), syncthing ($ST_DIR), prometheus ($PM_DIR), tomcat ($TC_DIR), roundcube ($RC_DIR), monit ($MN_DIR), shaarli ($SH_DIR), znc ($ZN_DIR), zabbix ($ZB_DIR, postgresql db zabbix_seed), vendure ($VN_DIR, postgresql db vendure_seed), postfixadmin ($PF_DIR, sqlite), nagios ($NG_DIR, apache2 on the test's port), tt-rss ($TT_DIR, postgresql db ttrss_seed), icinga web 2 ($IW_DIR, postgresql db icingaweb_seed), tiddlywiki ($TW_DIR), deluge ($DL_DIR), cacti ($CT_DIR, mariadb db cacti_seed), node-red ($NR_DIR), unleash ($UL_DIR, postgresql db unleash_seed), n8n ($N8_DIR), rspamd ($RS_DIR), cups ($CU_DIR), hledger-web ($HL_DIR), haproxy ($HP_DIR), supervisor ($SV_DIR), gitweb ($GW_DIR, apache2 on the test's port), cgit ($CG_DIR, gitweb's repositories), gitit ($GT_DIR), ikiwiki ($IK_DIR), ldap account manager ($LM_DIR, its own slapd), phpldapadmin ($PL_DIR, LAM's seed in its own slapd), davical ($DV_DIR, postgresql db davical_seed)"
