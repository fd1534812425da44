// Proxy routing: PROXY_URLS maps (type, country) to an upstream proxy URL.
//   "isp:us=http://10.0.0.1:3128,residential:de=http://…,residential:*=http://…,auto=http://…"
// A run's proxy_settings pick an entry (exact country, then the type's "*"); no proxy_settings
// uses "auto" when configured (the platform's choice), else a direct connection.
export interface ProxySettings {
  type: 'isp' | 'residential';
  location: string;
}

export class ProxyMap {
  private readonly map = new Map<string, string>();

  constructor(spec: string | null) {
    for (const part of (spec ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)) {
      const i = part.indexOf('=');
      if (i < 0) throw new Error(`PROXY_URLS entry '${part}' has no '='`);
      const key = part.slice(0, i).trim().toLowerCase();
      const url = part.slice(i + 1).trim();
      new URL(url);
      if (!/^(auto|(isp|residential):([a-z]{2}|\*))$/.test(key))
        throw new Error(`PROXY_URLS key '${key}' must be auto, isp:<cc>, residential:<cc> or <type>:*`);
      this.map.set(key, url);
    }
  }

  /** The upstream URL for a run, null = direct; undefined = settings given but nothing configured. */
  resolve(s: ProxySettings | null | undefined): string | null | undefined {
    if (!s) return this.map.get('auto') ?? null;
    return this.map.get(`${s.type}:${s.location}`) ?? this.map.get(`${s.type}:*`);
  }
}
