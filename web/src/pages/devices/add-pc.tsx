import { useId, useState } from 'react';
import { api, unwrap } from '../../api/client';
import { ActionError, useAction } from '../../components/actions';
import { OnceSecret } from '../../components/ui';

type Platform = 'linux' | 'mac' | 'mac-arm' | 'win';
type Privilege = 'read' | 'write' | 'exec';

/** The executables GET /api/v1/afp/download/{platform} answers (daemon/build.ts names them). */
const PLATFORMS: Array<{ id: Platform; label: string; file: string }> = [
  { id: 'linux', label: 'Linux (x86-64)', file: 'hearth-afp-linux' },
  { id: 'mac', label: 'macOS (Intel)', file: 'hearth-afp-macos-x64' },
  { id: 'mac-arm', label: 'macOS (Apple silicon)', file: 'hearth-afp-macos-arm64' },
  { id: 'win', label: 'Windows (x86-64)', file: 'hearth-afp-win-x64.exe' },
];

const TOKEN_PLACEHOLDER = '<a token with the devices scope>';

/**
 * The commands that install and start the daemon on a PC, with this server's address. The token
 * travels in HEARTH_AFP_TOKEN rather than --token, since a command line is visible to the PC's
 * other users.
 */
function commands(platform: Platform, origin: string, token: string, privilege: Privilege): string {
  const file = PLATFORMS.find((item) => item.id === platform)!.file;
  const download = `${origin}/api/v1/afp/download/${platform}`;
  if (platform === 'win') {
    return [
      `Invoke-WebRequest -Uri ${download} -OutFile ${file}`,
      `$env:HEARTH_AFP_TOKEN = "${token}"`,
      `.\\${file} --server ${origin} --privilege ${privilege}`,
    ].join('\n');
  }
  const lines = [`curl -fo ${file} ${download} && chmod +x ${file}`];
  // Apple silicon runs only signed code; an ad hoc signature on the Mac is enough.
  if (platform === 'mac-arm') lines.push(`codesign --sign - ${file}`);
  lines.push(`HEARTH_AFP_TOKEN=${token} ./${file} --server ${origin} --privilege ${privilege}`);
  return lines.join('\n');
}

/** How to add a PC: download the daemon, give it a devices token, start it. */
export function AddPc() {
  const [platform, setPlatform] = useState<Platform>(() => guessPlatform());
  const [privilege, setPrivilege] = useState<Privilege>('read');
  const [token, setToken] = useState<string>();
  const action = useAction();
  const id = useId();
  const origin = window.location.origin;
  const makeToken = () =>
    void action.run(async () => {
      const answer = unwrap(await api.POST('/api/v1/tokens', { body: { name: `PC daemon (${new Date().toLocaleDateString()})`, scopes: ['devices'] } }));
      setToken(answer.data.token);
    });
  return (
    <section aria-labelledby={`${id}-heading`} className="card add-pc">
      <h2 id={`${id}-heading`}>Add a PC</h2>
      <p>
        Run the Hearth daemon on the PC. It connects out to this server (no port opens on the PC) and allows only what you choose there, inside one folder (your home
        folder unless you add <code>--root &lt;folder&gt;</code>).
      </p>
      <h3>1. Download the daemon</h3>
      <ul className="downloads">
        {PLATFORMS.map((item) => (
          <li key={item.id}>
            <a href={`/api/v1/afp/download/${item.id}`} download={item.file}>
              {item.label}
            </a>{' '}
            <span className="muted mono">{item.file}</span>
          </li>
        ))}
      </ul>
      <p className="muted">The first download of each platform is built on the server and can take a minute. macOS and Windows warn about an unsigned program the first time.</p>
      <h3>2. Give it a token</h3>
      <p>Give the daemon a token with only the devices scope.</p>
      {token ? (
        <OnceSecret label="Token for the PC" value={token} />
      ) : (
        <button type="button" disabled={action.busy} onClick={makeToken}>
          Make a devices token
        </button>
      )}
      <ActionError error={action.error} />
      <h3>3. Start it</h3>
      <div className="form-grid">
        <div>
          <label htmlFor={`${id}-platform`}>The PC runs</label>
          <select id={`${id}-platform`} value={platform} onChange={(event) => setPlatform(event.currentTarget.value as Platform)}>
            {PLATFORMS.map((item) => (
              <option key={item.id} value={item.id}>
                {item.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-privilege`}>Agents may</label>
          <select id={`${id}-privilege`} value={privilege} onChange={(event) => setPrivilege(event.currentTarget.value as Privilege)}>
            <option value="read">read files</option>
            <option value="write">read and write files</option>
            <option value="exec">read and write files, run commands</option>
          </select>
        </div>
      </div>
      <pre className="output command" aria-label={`Commands for ${PLATFORMS.find((item) => item.id === platform)!.label}`}>
        {commands(platform, origin, token ?? TOKEN_PLACEHOLDER, privilege)}
      </pre>
      <p className="muted">
        {platform === 'win' ? 'In PowerShell. ' : ''}The PC appears above as soon as the daemon connects. Stop it with Ctrl-C; run it with <code>--help</code> for every option.
      </p>
    </section>
  );
}

function guessPlatform(): Platform {
  const agent = navigator.userAgent;
  if (/Windows/i.test(agent)) return 'win';
  if (/Mac OS X|Macintosh/i.test(agent)) return 'mac-arm';
  return 'linux';
}
