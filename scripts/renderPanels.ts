// `npm run render:panels`: renders the README's picture of the Grafana board from real
// data. Five local redis-server nodes, a 40 s story (short jobs, a split, a leftover, a
// lock without TTL, a node paused for 8 s), the built exporter (dist/cli.js) scraped once a
// second, and two panels drawn as SVG in Grafana's dark style:
// media/screenshots/grafana-panels.svg, then a PNG of it for README (vsce refuses SVG
// images). Needs `npm run build` first.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { resolve } from 'node:path';
import { Redlock } from '../src/core';
import { startNodes, stopAll } from '../src/dev/redisServer';

const SECONDS = 40;
const OUT = resolve('media/screenshots/grafana-panels.svg');

function scrape(url: string): Promise<Map<string, number>> {
  return new Promise((res, rej) => {
    get(url, (r) => {
      let body = '';
      r.setEncoding('utf8');
      r.on('data', (d: string) => (body += d));
      r.on('end', () => {
        const m = new Map<string, number>();
        if (r.statusCode === 200) {
          for (const line of body.split('\n')) {
            if (!line || line.startsWith('#')) continue;
            const i = line.lastIndexOf(' ');
            m.set(line.slice(0, i), Number(line.slice(i + 1)));
          }
        }
        res(m);
      });
    }).on('error', rej);
  });
}

interface Series {
  label: string;
  colour: string;
  values: number[];
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function panel(x: number, title: string, series: Series[], w: number, h: number): string {
  const padL = 36;
  const padT = 34;
  const padB = 44;
  const plotW = w - padL - 14;
  const plotH = h - padT - padB;
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const top = Math.ceil(max / 2) * 2;
  const n = series[0].values.length;
  const px = (i: number): number => x + padL + (i / (n - 1)) * plotW;
  const py = (v: number): number => padT + plotH - (v / top) * plotH;
  const parts: string[] = [
    `<rect x="${x + 0.5}" y="0.5" width="${w - 1}" height="${h - 1}" rx="3" fill="#181b1f" stroke="#2c3235"/>`,
    `<text x="${x + 10}" y="20" fill="#ccccdc" font-size="13" font-weight="500">${title}</text>`,
  ];
  for (let k = 0; k <= 4; k++) {
    const v = (top / 4) * k;
    const y = py(v);
    parts.push(`<line x1="${x + padL}" x2="${x + padL + plotW}" y1="${y}" y2="${y}" stroke="#2c3235"/>`);
    parts.push(`<text x="${x + padL - 6}" y="${y + 4}" fill="#8e8e8e" font-size="10" text-anchor="end">${Number.isInteger(v) ? v : v.toFixed(1)}</text>`);
  }
  for (let s = 0; s <= n - 1; s += 10) {
    parts.push(`<text x="${px(s)}" y="${padT + plotH + 14}" fill="#8e8e8e" font-size="10" text-anchor="middle">${s}s</text>`);
  }
  for (const s of series) {
    let d = '';
    s.values.forEach((v, i) => {
      d += i === 0 ? `M${px(i)},${py(v)}` : `H${px(i)}V${py(v)}`;
    });
    parts.push(`<path d="${d}" fill="none" stroke="${s.colour}" stroke-width="2"/>`);
  }
  let lx = x + padL;
  for (const s of series) {
    parts.push(`<rect x="${lx}" y="${h - 16}" width="12" height="3" fill="${s.colour}"/>`);
    parts.push(`<text x="${lx + 16}" y="${h - 11}" fill="#ccccdc" font-size="11">${s.label}</text>`);
    lx += 26 + s.label.length * 6.5;
  }
  return parts.join('\n');
}

async function main(): Promise<void> {
  const servers = await startNodes(5);
  const urls = servers.map((s) => s.url);
  const rl = new Redlock(urls, { commandTimeoutMs: 200 });
  const exporter = spawn(process.execPath, [resolve('dist/cli.js'), 'exporter', '--listen', '127.0.0.1:0', '--interval', '500', '--pattern', 'lock:*', ...urls.flatMap((u) => ['--node', u])], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const url = await new Promise<string>((res) => {
      let out = '';
      exporter.stdout!.on('data', (d) => {
        out += String(d);
        const m = /serving (\S+)/.exec(out);
        if (m) res(m[1]);
      });
    });
    for (let i = 0; i < 3; i++) await rl.acquire(`lock:orders:${i}`, 60_000);
    const verdicts = ['held', 'split', 'partial', 'unknown'];
    const flags = ['no-ttl', 'degraded', 'expiring'];
    const samples: Array<Map<string, number>> = [];
    for (let t = 0; t < SECONDS; t++) {
      const started = Date.now();
      // Short jobs come and go (a TTL of 3-7 s).
      if (t % 2 === 0 && t < 30) await rl.acquire(`lock:job:${t}`, 3000 + ((t * 7) % 5) * 1000).catch(() => undefined);
      const clients = servers.map((s) => s.client());
      if (t === 6) await Promise.all(clients.map((c, i) => c.set('lock:split:invoice', i < 2 ? 'token-a' : i < 4 ? 'token-b' : 'token-a', 'PX', 20_000)));
      if (t === 12) await clients[0].set('lock:leftover:export', 'token-left', 'PX', 14_000);
      if (t === 16) await Promise.all(clients.map((c) => c.set('lock:forever', 'token-forever')));
      if (t === 22) servers[4].pause();
      if (t === 30) servers[4].resume();
      if (t === 33) await Promise.all(clients.map((c) => c.del('lock:forever')));
      clients.forEach((c) => c.disconnect());
      let m = await scrape(url);
      while (m.size === 0) m = await scrape(url);
      samples.push(m);
      await sleep(Math.max(0, 1000 - (Date.now() - started)));
    }
    const palette: Record<string, string> = { held: '#73bf69', split: '#f2495c', partial: '#fade2a', unknown: '#b877d9', 'no-ttl': '#ff9830', degraded: '#f2495c', expiring: '#5794f2' };
    const series = (metric: string, label: string, names: string[]): Series[] =>
      names.map((n) => ({ label: n, colour: palette[n], values: samples.map((m) => m.get(`${metric}{${label}="${n}"}`) ?? 0) }));
    const w = 480;
    const h = 230;
    const svg = [
      `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * w + 8}" height="${h}" viewBox="0 0 ${2 * w + 8} ${h}" font-family="Inter, Helvetica, Arial, sans-serif">`,
      `<rect width="100%" height="100%" fill="#111217"/>`,
      panel(0, 'Locks by verdict (redlock_locks)', series('redlock_locks', 'verdict', verdicts), w, h),
      panel(w + 8, 'Lock flags (redlock_lock_flags)', series('redlock_lock_flags', 'flag', flags), w, h),
      '</svg>',
      '',
    ].join('\n');
    writeFileSync(OUT, svg);
    console.log(`wrote ${OUT}`);
  } finally {
    exporter.kill('SIGTERM');
    await rl.quit();
    await stopAll();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
