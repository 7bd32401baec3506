/** A fake Google and a test app that uses it as its OAuth provider: the setup of the OAuth tests. */
import { startFakeGoogle, type FakeGoogle } from './fakes/google.js';
import { createTestApp, type TestApp } from './harness.js';

export const GOOGLE_CLIENT_ID = 'hearth-test.apps.googleusercontent.com';
export const GOOGLE_CLIENT_SECRET = 'GOCSPX-test-secret';

export interface GoogleApp {
  fake: FakeGoogle;
  t: TestApp;
}

/** The app's Google settings pointing at `fake`, with the client it knows. */
function googleConfig(fake: FakeGoogle, client = { clientId: GOOGLE_CLIENT_ID, clientSecret: GOOGLE_CLIENT_SECRET }) {
  return { allowPrivateNetwork: true, google: { ...client, endpointOverride: fake.url } };
}

/** Starts a fake Google for this client, and an app configured to use it (private addresses allowed: the fake is local). */
export async function startGoogleApp(client = { clientId: GOOGLE_CLIENT_ID, clientSecret: GOOGLE_CLIENT_SECRET }): Promise<GoogleApp> {
  const fake = await startFakeGoogle(client);
  const t = await createTestApp({ config: googleConfig(fake, client) });
  return { fake, t };
}

/** Closes what startGoogleApp started (either may be missing when it failed half-way). */
export async function closeGoogleApp(app: Partial<GoogleApp>): Promise<void> {
  await app.t?.close();
  await app.fake?.close();
}
