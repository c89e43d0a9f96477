/** Resolves with the error a promise rejects with (fails the test if it resolves). */
export async function refusal(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected a refusal, got a result');
}
