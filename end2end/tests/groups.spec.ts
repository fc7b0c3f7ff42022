// Four people in four browsers on one conversation: a call waits for the
// ops group; the person who asked for it may not approve it, a member of
// another group and a viewer see whom it waits for, and the approver's
// decision reaches every page with their name.
import { test, expect, AirlockServer } from './fixtures';
import { PASSWORD, signedIn, startsConversation } from './people';

const CONFIG = `
auth:
  passwords: true
  groups:
    ops: [ana, cy]
    dev: [bo]
sources:
  demo:
    require_approval: [delete_file]
    approvers: [ops]
    separation_of_duties: true
`;

test('a call waits for its group, and not for the person who asked for it', async ({ browser }) => {
  const server = await AirlockServer.start(CONFIG);
  try {
    server.addPerson('ana', PASSWORD, '--display-name', 'Ana Lima');
    server.addPerson('bo', PASSWORD, '--display-name', 'Bo Chen');
    server.addPerson('cy', PASSWORD, '--display-name', 'Cy Park');
    server.addPerson('vic', PASSWORD, '--access', 'viewer', '--display-name', 'Vic Moss');

    // Ana asks for a deletion: her card may only refuse it.
    const ana = await signedIn(browser, server, 'ana', '/');
    const chat = await startsConversation(ana, 'delete notes.txt');
    const anasCard = ana.getByRole('article', { name: 'delete_file call' });
    await expect(anasCard).toContainText('You asked for this call: another approver must approve it.');
    await expect(anasCard.getByRole('button', { name: 'Approve' })).toHaveCount(0);
    await expect(anasCard.getByRole('button', { name: 'Reject' })).toBeVisible();
    await expect(anasCard.getByRole('button', { name: 'Copy review link' })).toHaveCount(0);
    // Approving by writing in the chat is refused, and says why.
    await ana.getByRole('textbox', { name: 'Message' }).fill('approve');
    await ana.getByRole('button', { name: 'Send' }).click();
    await expect(ana.getByRole('alert')).toContainText('you asked for this call, so another approver must approve it');

    // Bo (dev) and Vic (viewer) see whom it waits for, and no buttons.
    for (const name of ['bo', 'vic']) {
      const page = await signedIn(browser, server, name, chat);
      const card = page.getByRole('article', { name: 'delete_file call' });
      await expect(card).toContainText('Waiting for ops');
      await expect(page.getByRole('list', { name: 'Messages' }).getByText('Ana Lima')).toBeVisible();
      await expect(card.getByRole('button', { name: /Approve|Reject/ })).toHaveCount(0);
      await page.context().close();
    }
    const vic = await signedIn(browser, server, 'vic', chat);

    // Cy (ops) approves; Ana's and Vic's pages show it with Cy's name.
    const cy = await signedIn(browser, server, 'cy', chat);
    const cysCard = cy.getByRole('article', { name: 'delete_file call' });
    await cysCard.getByRole('button', { name: 'Approve' }).click();
    for (const page of [cy, ana, vic]) {
      await expect(page.getByRole('article', { name: 'delete_file call' })).toContainText('Approved by Cy Park');
    }
  } finally {
    await server.stop();
    server.dispose();
  }
});
