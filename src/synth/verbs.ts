// Verbs that say what a call does when the method alone does not: an RPC method's name
// (`torrent-get`, `core.get_torrents_status`, `VideoLibrary.GetMovies`, `aria2.tellStatus`) or the
// action a link names in its query (`index.html?processname=web&action=stop`).

export const READ_VERBS = new Set(
  'get list search find query read fetch show describe status stats info tell count lookup browse view exists ping version'.split(' '),
);
export const WRITE_VERBS = new Set(
  'set add create update upsert delete remove put post save send start stop move rename upload write insert edit modify reset clear purge import run exec execute submit cancel pause resume login logout apply change mark toggle enable disable verify reannounce queue approve reject archive restore sync'.split(
    ' ',
  ),
);

/** A name's words, lower case: camelCase and any non-alphanumeric split (`tellStatus` → tell, status). */
export const nameWords = (m: string) =>
  m
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
