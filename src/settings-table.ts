import { SETTINGS, flagName } from './config.ts';

/** The settings table of docs/configuration.md (npm run readme:settings writes it there), made from the settings themselves so the two cannot drift. */
export function settingsTable(): string {
  const rows = SETTINGS.map((s) => `| \`${s.env}\` | \`${flagName(s.env)}\` | ${s.fallback === undefined ? '(unset)' : `\`${s.fallback}\``} | ${s.help.replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;')} |`);
  return ['| Variable | Flag | Default | Meaning |', '| --- | --- | --- | --- |', ...rows].join('\n');
}
