import {
  type ApiResponse,
  type CheckContext,
  expectStatusNot,
  fail,
  petPath,
  type RequestOptions,
  requirement,
} from '../harness/index.ts';

/** One request per operation of the pets service; the create row is a write, skipped under --read-only. */
const operations = [
  {
    case: 'listPets',
    send: (ctx: CheckContext, auth: RequestOptions['auth']) => ctx.api.get('/pets', { auth }),
  },
  {
    case: 'showPetById',
    send: (ctx: CheckContext, auth: RequestOptions['auth']) => ctx.api.get(petPath(ctx.freshId()), { auth }),
  },
  {
    case: 'createPets',
    needs: ['write' as const],
    send: (ctx: CheckContext, auth: RequestOptions['auth']) =>
      ctx.api.post('/pets', { json: ctx.newPet(), auth }),
  },
];

function expectRefused(res: ApiResponse, without: string): void {
  if (res.status !== 401 && res.status !== 403) fail(res, `status 401 or 403 (a request ${without})`);
}

requirement.each('AUTH-KEY-ACCEPTED', operations, async (ctx, { send }) => {
  const res = await send(ctx, 'config');
  expectStatusNot(
    res,
    [401, 403],
    'a status other than 401 and 403 (the request carries the configured key)',
  );
});

requirement.each('AUTH-MISSING-KEY-REFUSED', operations, async (ctx, { send }) => {
  expectRefused(await send(ctx, 'none'), 'without the key');
});

requirement.each('AUTH-WRONG-KEY-REFUSED', operations, async (ctx, { send }) => {
  expectRefused(await send(ctx, 'wrong'), 'with a wrong key');
});
