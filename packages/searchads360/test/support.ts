/** A fetch that answers from a script and records what was sent. */
export function scriptedFetch(...answers: (Response | ((body: unknown) => Response))[]) {
  const requests: { method: string; url: string; body: unknown }[] = [];
  const fetch = async (input: string | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const text = await request.text();
    const body = text ? JSON.parse(text) : undefined;
    requests.push({ method: request.method, url: request.url, body });
    const answer = answers[Math.min(requests.length - 1, answers.length - 1)] as
      | Response
      | ((b: unknown) => Response);
    return typeof answer === 'function' ? answer(body) : answer.clone();
  };
  return { fetch, requests };
}

export function badRequest(...problems: [location: string | undefined, reason: string][]) {
  return Response.json(
    {
      error: {
        code: 400,
        message: `The request was not processed: ${problems.length} problems.`,
        errors: problems.map(([location, reason]) => ({
          domain: 'global',
          reason,
          message: reason,
          ...(location ? { location } : {}),
        })),
      },
    },
    { status: 400 },
  );
}
