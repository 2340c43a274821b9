import {
  applyMutation,
  arbitraryOf,
  checkGenerated,
  contract,
  expectStatus,
  expectStatusBetween,
  fc,
  isInvalid,
  mutationsOf,
  requirement,
} from '../harness/index.ts';

const Pet = contract.schema('Pet');
const validPets = arbitraryOf(Pet) as fc.Arbitrary<Record<string, unknown> & { id: bigint }>;
const NUM_RUNS = 50;

requirement('CREATE-VALID-GENERATED', async ({ api, config, freshId }) => {
  await checkGenerated(
    config,
    validPets,
    async (generated) => {
      // The generated id keeps its sign and size; its digits are fresh, so no case meets an earlier pet.
      const pet = { ...generated, id: freshId(generated.id) };
      if (isInvalid(contract, Pet, pet))
        throw new Error(`suite bug: generated pet is not valid: ${fc.stringify(pet)}`);
      const res = await api.post('/pets', { json: pet });
      expectStatus(res, 201);
    },
    { numRuns: NUM_RUNS },
  );
});

requirement('CREATE-INVALID-GENERATED', async ({ api, config, freshId }) => {
  await checkGenerated(
    config,
    fc.record({ pet: validPets, mutation: mutationsOf(Pet) }),
    async ({ pet, mutation }) => {
      const body = applyMutation({ ...pet, id: freshId(pet.id) }, mutation);
      if (!isInvalid(contract, Pet, body)) {
        throw new Error(`suite bug: mutation "${mutation.why}" left a valid pet: ${fc.stringify(body)}`);
      }
      const res = await api.post('/pets', { json: body });
      expectStatusBetween(res, 400, 499);
    },
    { numRuns: NUM_RUNS },
  );
});
