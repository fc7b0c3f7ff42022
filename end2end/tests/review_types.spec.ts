// Every review type answered on its page in a browser with JavaScript, at
// a phone's width and a desktop's (the flows are in `asking.ts`).
import { test } from '@playwright/test';
import { answerEveryType } from './asking';

for (const width of [360, 1280]) {
  test(`every review type is answered on its page (${width} px)`, async ({ browser }) => {
    await answerEveryType(browser, width, true);
  });
}
