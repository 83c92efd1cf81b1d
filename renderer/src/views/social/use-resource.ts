import { useCallback, useEffect, useState } from 'react';
import { useSocialClient } from '../../stores/social-client.ts';

/**
 * A list the client reads from the server and reads again after each change: its value (null until the first
 * answer), `reload`, and `act`, which runs a change, reports its failure in `error`, and reloads.
 */
export function useResource<T>(path: string) {
  const { request } = useSocialClient();
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const reload = useCallback(async () => {
    try {
      setData(await request<T>(path));
    } catch (err) {
      setError((err as Error).message);
    }
  }, [path, request]);
  useEffect(() => {
    void reload();
  }, [reload]);
  const act = async <R>(change: () => Promise<R>): Promise<R | undefined> => {
    setError(null);
    try {
      const result = await change();
      await reload();
      return result;
    } catch (err) {
      setError((err as Error).message);
      return undefined;
    }
  };
  return { data, error, setError, reload, act, request };
}
