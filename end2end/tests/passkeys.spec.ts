// Step-up with a passkey, in Chromium with its virtual authenticator (the
// DevTools WebAuthn domain): a person adds a passkey on their account
// page, calls whose policy says `step_up: passkey` are approved with it in
// the chat and on a review page, and approvals without user verification,
// or with an assertion made for another call, are refused while the call
// waits.
import { test, expect, AirlockServer } from './fixtures';
import { PASSWORD } from './people';
import type { CDPSession, Locator, Page } from '@playwright/test';

const CONFIG = `
auth:
  passwords: true
sources:
  demo:
    require_approval: [delete_file]
    auto_approved_tools: [list_directory, read_file]
    rules:
      - tool: delete_file
        action: require_approval
        step_up: passkey
`;

/** A passkey authenticator built into the browser, verifying its user. */
async function authenticator(page: Page): Promise<{ cdp: CDPSession; id: string }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2', ctap2Version: 'ctap2_1', transport: 'internal',
      hasResidentKey: true, hasUserVerification: true, isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, id: authenticatorId };
}

async function callId(card: Locator): Promise<string> {
  return (await card.getAttribute('data-call'))!;
}

test('a passkey is added, approves a call that needs one, and nothing less does', async ({ browser }) => {
  const server = await AirlockServer.start(CONFIG);
  try {
    server.addPerson('rita', PASSWORD, '--admin', '--display-name', 'Rita Reyes');
    // A passkey's site is a name, never an IP address.
    const site = server.url.replace('127.0.0.1', 'localhost');
    const page = await (await browser.newContext()).newPage();
    const { cdp, id } = await authenticator(page);
    await page.goto(`${site}/sign-in?next=/account`);
    await page.getByLabel('Name').fill('rita');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(`${site}/account`);

    await expect(page.getByText('You have no passkeys.')).toBeVisible();
    await page.getByLabel('Name it').fill('Laptop');
    await page.getByRole('button', { name: 'Add a passkey' }).click();
    await expect(page.getByRole('status')).toContainText('Added the passkey “Laptop”');
    const made = await cdp.send('WebAuthn.getCredentials', { authenticatorId: id });
    expect(made.credentials).toHaveLength(1);
    await page.reload();
    await expect(page.getByRole('list', { name: 'Passkeys' })).toContainText('Laptop');

    await page.goto(`${site}/`);
    await page.getByRole('button', { name: 'New conversation' }).click();
    // Two calls in one turn: a message sent while calls wait would decide them.
    await page.getByRole('textbox', { name: 'Message' }).fill('delete notes.txt and todo.md');
    await page.getByRole('button', { name: 'Send' }).click();
    const cards = page.getByRole('article', { name: 'delete_file call' });
    await expect(cards).toHaveCount(2);
    const card = cards.nth(0);
    await expect(card).toHaveAttribute('data-status', 'pending_approval');
    await expect(card.getByRole('button', { name: 'Edit arguments' })).toHaveCount(0);
    const approve = card.getByRole('button', { name: 'Approve with passkey' });

    // The authenticator leaves out user verification: the server refuses.
    await cdp.send('WebAuthn.setResponseOverrideBits', { authenticatorId: id, isBadUV: true });
    await approve.click();
    await expect(card.getByRole('alert')).toContainText('did not verify you');
    await expect(card).toHaveAttribute('data-status', 'pending_approval');
    await cdp.send('WebAuthn.setResponseOverrideBits', { authenticatorId: id });

    // An assertion made for another call does not approve this one.
    const [first, second] = [await callId(cards.nth(0)), await callId(cards.nth(1))];
    const [status, answer] = await page.evaluate(async ({ first, second }) => {
      const post = async (path: string, fields: Record<string, string>) => {
        const res = await fetch(path, {
          method: 'POST',
          headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(fields),
        });
        return [res.status, await res.json()] as const;
      };
      const [, asked] = await post('/api/fn/step_up_challenge', { call_id: second });
      const options = (PublicKeyCredential as any).parseRequestOptionsFromJSON(JSON.parse(asked.options));
      const credential = (await navigator.credentials.get({ publicKey: options })) as any;
      if (!asked.challenge_id) return [0, asked];
      return post("/api/fn/approve_call", {
        call_id: first,
        passkey_challenge: asked.challenge_id,
        passkey_credential: JSON.stringify(credential.toJSON()),
      });
    }, { first, second });
    expect([status, answer.code]).toEqual([403, "passkey_refused"]);
    expect(answer.code).toBe('passkey_refused');
    await expect(cards.nth(0)).toHaveAttribute('data-status', 'pending_approval');

    // With the person verified, for this call: approved, and it runs.
    await cards.nth(0).getByRole('button', { name: 'Approve with passkey' }).click();
    await expect(cards.nth(0)).toHaveAttribute('data-status', 'approved');
    // The other call on its review page, signed in: a passkey approves it there too.
    await cards.nth(1).getByRole('button', { name: 'Copy review link' }).click();
    const link = await cards.nth(1).getByRole('textbox', { name: 'Review link' }).inputValue();
    const chat = page.url();
    await page.goto(link);
    const reviewCard = page.getByRole('article', { name: 'delete_file call' });
    await expect(reviewCard.getByRole('button', { name: 'Approve', exact: true })).toHaveCount(0);
    await reviewCard.getByRole('button', { name: 'Approve with passkey' }).click();
    await expect(page.getByRole('status')).toContainText('Approved by Rita Reyes');
    // With the turn decided, both calls run.
    await page.goto(chat);
    await expect(cards.nth(0)).toHaveAttribute('data-status', 'completed');
    await expect(cards.nth(1)).toHaveAttribute('data-status', 'completed');

    // The audit names the passkey.
    await page.goto(`${site}/audit`);
    await expect(page.getByRole('main')).toContainText('with the passkey "Laptop"');
  } finally {
    await server.stop();
  }
});
