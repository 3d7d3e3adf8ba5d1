//! Whole numbers in request bodies as JSON Schema means them: `7` and
//! `7.0` are the same integer there (and in JavaScript), while serde's
//! i64 refuses `7.0`. For the fields the OpenAPI document calls integers.
//! Anything else (`7.5`, `1e300`) is refused as a malformed body (400),
//! as the schema refuses it.

use serde::{Deserialize, Deserializer, de::Error};

fn whole(number: &serde_json::Number) -> Option<i64> {
    number.as_i64().or_else(|| {
        let value = number.as_f64()?;
        (value.fract() == 0.0 && (-9.2e18..9.2e18).contains(&value)).then_some(value as i64)
    })
}

fn convert<T: TryFrom<i64>, E: Error>(number: &serde_json::Number) -> Result<T, E> {
    whole(number)
        .and_then(|value| T::try_from(value).ok())
        .ok_or_else(|| E::custom(format!("{number} is not a whole number in range")))
}

pub fn one<'de, D: Deserializer<'de>, T: TryFrom<i64>>(deserializer: D) -> Result<T, D::Error> {
    convert(&serde_json::Number::deserialize(deserializer)?)
}

pub fn list<'de, D: Deserializer<'de>, T: TryFrom<i64>>(
    deserializer: D,
) -> Result<Vec<T>, D::Error> {
    Vec::<serde_json::Number>::deserialize(deserializer)?
        .iter()
        .map(convert)
        .collect()
}

pub fn optional<'de, D: Deserializer<'de>, T: TryFrom<i64>>(
    deserializer: D,
) -> Result<Option<T>, D::Error> {
    Option::<serde_json::Number>::deserialize(deserializer)?
        .map(|number| convert(&number))
        .transpose()
}

pub fn optional_list<'de, D: Deserializer<'de>, T: TryFrom<i64>>(
    deserializer: D,
) -> Result<Option<Vec<T>>, D::Error> {
    Option::<Vec<serde_json::Number>>::deserialize(deserializer)?
        .map(|numbers| numbers.iter().map(convert).collect())
        .transpose()
}

/// A map of maps of whole numbers, by name (`{"7": {"child": 2}}`).
pub fn map_of_maps<'de, D: Deserializer<'de>, T: TryFrom<i64>>(
    deserializer: D,
) -> Result<std::collections::BTreeMap<String, std::collections::BTreeMap<String, T>>, D::Error> {
    type Numbers = std::collections::BTreeMap<String, serde_json::Number>;
    std::collections::BTreeMap::<String, Numbers>::deserialize(deserializer)?
        .into_iter()
        .map(|(outer, inner)| {
            let inner = inner
                .iter()
                .map(|(name, number)| Ok((name.clone(), convert(number)?)))
                .collect::<Result<_, D::Error>>()?;
            Ok((outer, inner))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[derive(serde::Deserialize, Debug)]
    struct Body {
        #[serde(deserialize_with = "super::one")]
        count: u32,
        #[serde(deserialize_with = "super::list")]
        ids: Vec<i64>,
    }

    #[test]
    fn a_whole_float_is_an_integer_and_anything_else_is_refused() {
        let body: Body =
            serde_json::from_str(r#"{"count": 7.0, "ids": [1, 2.0, 9007199254740992.0]}"#).unwrap();
        assert_eq!(
            (body.count, body.ids),
            (7, vec![1, 2, 9_007_199_254_740_992])
        );
        // Parsed exactly (serde_json's float_roundtrip), not an ulp off.
        let body: Body = serde_json::from_str(
            r#"{"count": 1, "ids": [-1803423533647437.0, 2251799813685247.0]}"#,
        )
        .unwrap();
        assert_eq!(
            body.ids,
            vec![-1_803_423_533_647_437, 2_251_799_813_685_247]
        );
        assert!(serde_json::from_str::<Body>(r#"{"count": 1, "ids": [7.5]}"#).is_err());
        assert!(serde_json::from_str::<Body>(r#"{"count": 1, "ids": [1e300]}"#).is_err());
        assert!(serde_json::from_str::<Body>(r#"{"count": 7.5, "ids": []}"#).is_err());
        assert!(serde_json::from_str::<Body>(r#"{"count": -1, "ids": []}"#).is_err());
    }

    #[derive(serde::Deserialize, Debug)]
    struct Counts {
        #[serde(deserialize_with = "super::map_of_maps")]
        counts: std::collections::BTreeMap<String, std::collections::BTreeMap<String, i32>>,
    }

    #[test]
    fn a_map_of_maps_takes_whole_numbers_in_range_only() {
        let read: Counts =
            serde_json::from_str(r#"{"counts": {"7": {"child": 2.0, "adult": -1}}}"#).unwrap();
        assert_eq!(read.counts["7"]["child"], 2);
        assert_eq!(read.counts["7"]["adult"], -1);
        assert!(serde_json::from_str::<Counts>(r#"{"counts": {"7": {"child": 1.5}}}"#).is_err());
        assert!(
            serde_json::from_str::<Counts>(r#"{"counts": {"7": {"child": 3000000000}}}"#).is_err()
        );
    }
}
