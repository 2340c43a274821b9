import { fail, requirement } from '../harness/index.ts';

requirement('STORE-ORDERS-EXISTS', async ({ api, note }) => {
  const res = await api.get('/store/orders');
  await note(`GET /store/orders answered ${res.status}`);
  if (res.status === 404 || res.status === 405)
    fail(res, 'a status other than 404 and 405 (the operation is said to exist)');
});
