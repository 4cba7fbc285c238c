/** A fetch that answers from a script and records what was sent. */
export function scriptedFetch(...answers: Response[]) {
  const requests: { method: string; url: string; headers: Record<string, string>; body: unknown }[] = [];
  const fetch = async (input: string | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const text = await request.text();
    requests.push({
      method: request.method,
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body: text ? JSON.parse(text) : undefined,
    });
    return (answers[Math.min(requests.length - 1, answers.length - 1)] as Response).clone();
  };
  return { fetch, requests };
}

export function googleError(status: number, reason: string) {
  return Response.json({ error: { code: status, message: reason, errors: [{ reason }] } }, { status });
}
