import { type ApiResponse, fail, petPath, requirement } from '../harness/index.ts';

// ---------------------------------------------------------------- response time (--max-response-time)

// Every answer of every check is held to the budget in the roll-up, as ANY-NO-5XX is; this check
// times the plainest request of each operation, so that the requirement is judged under --only too.
requirement('ANY-RESPONSE-TIME', async (ctx) => {
  const budget = ctx.config.maxResponseTimeMs ?? Number.POSITIVE_INFINITY;
  const answers: ApiResponse[] = [
    await ctx.api.get('/pets'),
    await ctx.api.get('/pets', { query: { limit: 1 } }),
  ];
  if (!ctx.config.readOnly) {
    const pet = ctx.newPet();
    answers.push(await ctx.api.post('/pets', { json: pet }));
    answers.push(await ctx.api.get(petPath(pet.id)));
  }
  const slow = answers.filter((res) => res.answerMs > budget);
  const [slowest] = slow.sort((a, b) => b.answerMs - a.answerMs);
  if (slowest !== undefined) {
    fail(
      slowest,
      `every answer within ${budget} ms (--max-response-time)`,
      `${slowest.request.method} ${new URL(slowest.request.url).pathname}: ${Math.round(slowest.answerMs)} ms to answer ${slowest.status}${slow.length > 1 ? `; ${slow.length - 1} more of ${answers.length} over the budget` : ''}`,
    );
  }
});
