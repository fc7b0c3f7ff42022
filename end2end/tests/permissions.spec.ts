// People see only what they may do: Approve all and Reject all offer the
// calls the person may decide and say how many, a viewer gets no answer
// form on the agent's question, and nobody is offered a review link they
// could not use.
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
    rules:
      - tool: delete_file
        when: [{ arg: /path, glob: "drafts/**" }]
        action: require_approval
        approvers: [dev]
`;

test('Approve all and Reject all offer only the calls a person may decide', async ({ browser }) => {
  const server = await AirlockServer.start(CONFIG);
  try {
    server.addPerson('ana', PASSWORD, '--display-name', 'Ana Lima');
    server.addPerson('bo', PASSWORD, '--display-name', 'Bo Chen');
    server.addPerson('cy', PASSWORD, '--display-name', 'Cy Park');
    server.addPerson('vic', PASSWORD, '--access', 'viewer', '--display-name', 'Vic Moss');

    // Ana asks for three deletions: two for ops, which she may only refuse, one for dev.
    const ana = await signedIn(browser, server, 'ana', '/');
    const chat = await startsConversation(ana, 'delete notes.txt, todo.md and drafts/plan.md');
    await expect(ana.getByRole('article', { name: 'delete_file call' })).toHaveCount(3);
    const anasBar = ana.getByRole('region', { name: 'Pending approvals' });
    await expect(anasBar).toContainText('3 tool calls waiting for approval, 2 of them for you');
    await expect(anasBar.getByRole('button', { name: /^Approve/ })).toHaveCount(0);
    await expect(anasBar.getByRole('button', { name: 'Reject 2 of 3' })).toBeVisible();
    await ana.setViewportSize({ width: 360, height: 800 });
    await anasBar.screenshot({ path: test.info().outputPath('reject-2-of-3-360.png') });

    // A viewer gets no bar at all.
    const vic = await signedIn(browser, server, 'vic', chat);
    await expect(vic.getByRole('article', { name: 'delete_file call' })).toHaveCount(3);
    await expect(vic.getByRole('region', { name: 'Pending approvals' })).toHaveCount(0);
    await vic.context().close();

    // Cy approves the two that are ops'; the one for dev still waits.
    const cy = await signedIn(browser, server, 'cy', chat);
    const cysBar = cy.getByRole('region', { name: 'Pending approvals' });
    await expect(cysBar).toContainText('3 tool calls waiting for approval, 2 of them for you');
    await cysBar.screenshot({ path: test.info().outputPath('approve-2-of-3.png') });
    await cysBar.getByRole('button', { name: 'Approve 2 of 3' }).click();
    const drafts = cy.getByRole('article', { name: 'delete_file call' }).filter({ hasText: 'drafts/plan.md' });
    await expect(cy.locator('article[data-status="approved"]')).toHaveCount(2);
    await expect(drafts).toHaveAttribute('data-status', 'pending_approval');
    await expect(drafts).toContainText('Waiting for dev');
    await expect(cysBar).toBeHidden();

    // Bo decides the last one on its card, and the agent goes on.
    const bo = await signedIn(browser, server, 'bo', chat);
    await expect(bo.getByRole('region', { name: 'Pending approvals' })).toBeHidden();
    const bosCard = bo.getByRole('article', { name: 'delete_file call' }).filter({ hasText: 'drafts/plan.md' });
    await bosCard.getByRole('button', { name: 'Approve', exact: true }).click();
    await expect(bo.locator('article[data-status="completed"]')).toHaveCount(3);
  } finally {
    await server.stop();
    server.dispose();
  }
});

test("a viewer sees the agent's question and whom it waits for, with no form", async ({ browser }) => {
  const server = await AirlockServer.start(CONFIG);
  try {
    server.addPerson('ana', PASSWORD, '--display-name', 'Ana Lima');
    server.addPerson('vic', PASSWORD, '--access', 'viewer', '--display-name', 'Vic Moss');
    const ana = await signedIn(browser, server, 'ana', '/');
    const chat = await startsConversation(ana, 'ask me what to name the file');
    await expect(ana.getByRole('article', { name: 'Question from the agent' }).getByRole('button', { name: 'Send answer' })).toBeVisible();

    for (const path of [chat, '/approvals']) {
      const vic = await signedIn(browser, server, 'vic', path);
      const card = vic.getByRole('article', { name: 'Question from the agent' });
      await expect(card).toContainText('Waiting for an approver');
      await expect(card).not.toContainText('Waiting for your answer');
      await expect(card.getByRole('textbox')).toHaveCount(0);
      await expect(card.getByRole('button')).toHaveCount(0);
      await expect(card.getByRole('link', { name: 'Answer on its page' })).toHaveCount(0);
      for (const width of [360, 1280]) {
        await vic.setViewportSize({ width, height: 800 });
        await card.screenshot({ path: test.info().outputPath(`viewer-question${path.replace(/\W/g, '-')}-${width}.png`) });
      }
      await vic.context().close();
    }
  } finally {
    await server.stop();
    server.dispose();
  }
});
