import t from 'tap'
import {
  OperationUnavailableError,
  RendererUnavailableError,
  SharedLoadFailedError,
  UpstreamBadResponseError,
  UpstreamBusyError,
  UpstreamError,
  UpstreamStatusError,
  UpstreamTimeoutError,
  UpstreamUnavailableError,
  describeUpstreamError,
  errorFromDescription,
} from '../../gateway/errors.ts'

/**
 * The content service's errors are one class tree under UpstreamError: the
 * error handler tells their messages, and each travels to another gateway
 * (through the shared tier) as its code and message and comes back as itself.
 */
const upstream = [
  { Coded: UpstreamUnavailableError, code: 'UPSTREAM_UNAVAILABLE', statusCode: 502 },
  { Coded: UpstreamTimeoutError, code: 'UPSTREAM_TIMEOUT', statusCode: 504 },
  { Coded: UpstreamBadResponseError, code: 'UPSTREAM_BAD_RESPONSE', statusCode: 502 },
  { Coded: UpstreamStatusError, code: 'UPSTREAM_STATUS', statusCode: 502 },
  { Coded: OperationUnavailableError, code: 'UPSTREAM_SCHEMA_MISMATCH', statusCode: 502 },
  { Coded: UpstreamBusyError, code: 'UPSTREAM_BUSY', statusCode: 503 },
]

for (const { Coded, code, statusCode } of upstream) {
  t.test(`${code} is an UpstreamError that crosses gateways as itself`, async (t) => {
    const error = new Coded('503')
    t.ok(error instanceof UpstreamError, 'an UpstreamError')
    t.ok(error instanceof Error)
    t.equal(error.code, code)
    t.equal(error.statusCode, statusCode)
    t.equal(error.name, 'FastifyError', 'made by @fastify/error as before')
    const described = describeUpstreamError(error)
    t.same(described, { code, message: error.message })
    const again = errorFromDescription(JSON.parse(JSON.stringify(described)))
    t.ok(again instanceof Coded, 'the same class on the other side')
    t.equal(again.message, error.message)
  })
}

t.test('no other error is an UpstreamError, and none crosses gateways with what it says', async (t) => {
  for (const error of [new RendererUnavailableError(), new SharedLoadFailedError(), new TypeError('insides'), { code: 'UPSTREAM_STATUS', message: 'forged' }]) {
    t.notOk(error instanceof UpstreamError, `${String(error)} is not one`)
    t.equal(describeUpstreamError(error), undefined)
  }
  t.ok(errorFromDescription({ code: 'RENDERER_UNAVAILABLE', message: 'x' }) instanceof SharedLoadFailedError, 'an unknown code: a failure that says nothing')
  t.ok(errorFromDescription(undefined) instanceof SharedLoadFailedError)
})
